/** DELETE /admin/api/v1/attributes/:name, with If-Match: the definition and every user's value of it. */
import { Fw } from "../../../../fw/index.ts";
import { remove_attribute, show_attribute } from "../../../../oidc/attributes/definitions.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, require_match, type OpenApiOperation } from "../common.ts";

export const AdminAttributeDelete = (idp: Provider) =>
  class AdminAttributeDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${ADMIN_API}/attributes/:name`;
    static openapi: OpenApiOperation = { summary: "Remove a custom attribute and every user's value of it", tag: "attributes", status: 204, if_match: true };

    async call() {
      const row = await show_attribute(idp.store, this.route_params.name ?? "");
      require_match(this, row);
      await remove_attribute(idp.store, row.name);
      audit_target(this, { action: "attribute_removed", details: { name: row.name } });
      return new Fw.Response.Empty();
    }
  };
