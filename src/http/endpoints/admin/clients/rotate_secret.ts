/**
 * POST /admin/api/v1/clients/:client_id/rotate-secret: a new secret, in this answer only. The old
 * one stops working at once, or with `{"grace_seconds": 3600}` (or 86400) keeps working that long
 * so the application can move without an outage (oidc/admin/clients.ts `rotate_client_secret`).
 */
import { Fw } from "../../../../fw/index.ts";
import { rotate_client_secret } from "../../../../oidc/admin/clients.ts";
import { check_admin_client_change } from "../../../../oidc/admin/lasting_power.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { ClientSecretSchema, RotateSecretSchema } from "../schemas.ts";
import { client_of } from "./find.ts";

export const AdminClientRotateSecretRequest = Fw.Request("AdminClientRotateSecretRequest", RotateSecretSchema, { from: ["body"] });

export const AdminClientRotateSecret = (idp: Provider) =>
  class AdminClientRotateSecret extends Fw.Endpoint(AdminClientRotateSecretRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/clients/:client_id/rotate-secret`;
    static openapi: OpenApiOperation = {
      summary: "Rotate a client's secret, optionally keeping the old one working for a grace period",
      tag: "clients",
      body: RotateSecretSchema,
      response: ClientSecretSchema,
    };

    async call() {
      const client = await client_of(idp, this.route_params.client_id ?? "");
      const grace_seconds = this.admin_client_rotate_secret_request.grace_seconds ?? 0;
      audit_target(this, { action: "client_secret_rotated", client_id: client.client_id, details: { grace_seconds } });
      check_admin_client_change(client, "secret");
      const { client: updated, secret } = await rotate_client_secret(idp.store, client, idp.now(), grace_seconds);
      return this.json({ client_id: updated.client_id, client_secret: secret, client_secret_expires_at: 0, previous_secret_expires_at: updated.previous_secret_expires_at });
    }
  };
