/** DELETE /admin/api/v1/resources/:uri (the URI percent-encoded): new requests naming it get invalid_target. */
import { Fw } from "../../../../fw/index.ts";
import { not_found } from "../../../../oidc/admin/errors.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";

export const AdminResourceDelete = (idp: Provider) =>
  class AdminResourceDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${ADMIN_API}/resources/:uri`;
    static openapi: OpenApiOperation = { summary: "Delete a resource server", tag: "resources", status: 204 };

    async call() {
      const uri = this.route_params.uri ?? "";
      if (!(await idp.store.delete_resource_server(uri))) throw not_found("resource", uri);
      audit_target(this, { action: "resource_deleted", details: { uri } });
      return new Fw.Response.Empty();
    }
  };
