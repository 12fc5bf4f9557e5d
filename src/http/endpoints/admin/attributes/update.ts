/**
 * PATCH /admin/api/v1/attributes/:name, with If-Match: the scope, the claim name or the flags of
 * a custom attribute (its name and type stay: stored values keep their meaning).
 */
import { Fw } from "../../../../fw/index.ts";
import { show_attribute, update_attribute } from "../../../../oidc/attributes/definitions.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, require_match, with_etag, type OpenApiOperation } from "../common.ts";
import { AttributePatchSchema, AttributeSchema } from "./schemas.ts";

export const AdminAttributeUpdateRequest = Fw.Request("AdminAttributeUpdateRequest", AttributePatchSchema, { from: ["body"] });

export const AdminAttributeUpdate = (idp: Provider) =>
  class AdminAttributeUpdate extends Fw.Endpoint(AdminAttributeUpdateRequest, Fw.Response.Json) {
    static route = `PATCH ${ADMIN_API}/attributes/:name`;
    static openapi: OpenApiOperation = {
      summary: "Change a custom attribute's scope, claim name or flags",
      tag: "attributes",
      body: AttributePatchSchema,
      response: AttributeSchema,
      etag: true,
      if_match: true,
    };

    async call() {
      const row = await show_attribute(idp.store, this.route_params.name ?? "");
      require_match(this, row);
      const input = this.admin_attribute_update_request;
      const updated = await update_attribute(idp.store, row.name, input, idp.now());
      audit_target(this, { action: "attribute_updated", details: { name: row.name, changed: Object.keys(input) } });
      return this.json(with_etag(this, updated));
    }
  };
