/** POST /admin/api/v1/clients/:client_id/rotate-secret: a new secret, in this answer only; the old one stops working at once. */
import { Fw } from "../../../../fw/index.ts";
import { rotate_client_secret } from "../../../../oidc/admin/clients.ts";
import { check_admin_client_change } from "../../../../oidc/admin/lasting_power.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { ClientSecretSchema } from "../schemas.ts";
import { client_of } from "./find.ts";

export const AdminClientRotateSecret = (idp: Provider) =>
  class AdminClientRotateSecret extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/clients/:client_id/rotate-secret`;
    static openapi: OpenApiOperation = { summary: "Rotate a client's secret", tag: "clients", response: ClientSecretSchema };

    async call() {
      const client = await client_of(idp, this.route_params.client_id ?? "");
      audit_target(this, { action: "client_secret_rotated", client_id: client.client_id });
      check_admin_client_change(client, "secret");
      const { client: updated, secret } = await rotate_client_secret(idp.store, client);
      return this.json({ client_id: updated.client_id, client_secret: secret, client_secret_expires_at: 0 });
    }
  };
