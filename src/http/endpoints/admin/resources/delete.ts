/** DELETE /admin/api/v1/resources/:uri (the URI percent-encoded): new requests naming it get invalid_target. */
import { Fw } from "../../../../fw/index.ts";
import { remove_resource_server } from "../../../../oidc/admin/resources.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";

export const AdminResourceDelete = (idp: Provider) =>
  class AdminResourceDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${ADMIN_API}/resources/:uri`;
    static openapi: OpenApiOperation = { summary: "Delete a resource server", tag: "resources", status: 204 };

    async call() {
      const uri = this.route_params.uri ?? "";
      await remove_resource_server(idp.store, uri);
      audit_target(this, { action: "resource_deleted", details: { uri } });
      return new Fw.Response.Empty();
    }
  };
