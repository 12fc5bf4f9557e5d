/** DELETE /admin/api/v1/clients/:client_id, with If-Match: the client with its grants, codes and tokens. */
import { Fw } from "../../../../fw/index.ts";
import { public_client } from "../../../../oidc/admin/clients.ts";
import { lost_write } from "../../../../oidc/admin/etag.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, require_match, type OpenApiOperation } from "../common.ts";
import { client_of } from "./find.ts";

export const AdminClientDelete = (idp: Provider) =>
  class AdminClientDelete extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${ADMIN_API}/clients/:client_id`;
    static openapi: OpenApiOperation = { summary: "Delete a client", tag: "clients", status: 204, if_match: true };

    async call() {
      const client = await client_of(idp, this.route_params.client_id ?? "");
      require_match(this, public_client(client));
      // Only the version whose ETag was checked (store/types/common.ts IfVersion).
      if (!(await idp.store.delete_client(client.client_id, { if_version: client.version })))
        throw await lost_write(idp.store.get_client(client.client_id), "client", client.client_id);
      audit_target(this, { action: "client_deleted", client_id: client.client_id, details: { client_name: client.metadata.client_name ?? null } });
      return new Fw.Response.Empty();
    }
  };
