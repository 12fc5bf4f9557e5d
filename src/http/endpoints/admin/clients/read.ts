/** GET /admin/api/v1/clients/:client_id: the client (never its secret), with an ETag. */
import { Fw } from "../../../../fw/index.ts";
import { public_client } from "../../../../oidc/admin/clients.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { ClientSchema } from "../schemas.ts";
import { client_of } from "./find.ts";

export const AdminClientRead = (idp: Provider) =>
  class AdminClientRead extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `GET ${ADMIN_API}/clients/:client_id`;
    static openapi: OpenApiOperation = { summary: "Read a client", tag: "clients", response: ClientSchema, etag: true };

    async call() {
      const client = await client_of(idp, this.route_params.client_id ?? "");
      audit_target(this, { action: "client_read", client_id: client.client_id });
      return this.json(with_etag(this, public_client(client)));
    }
  };
