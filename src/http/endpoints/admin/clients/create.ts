/** POST /admin/api/v1/clients: a new client; its secret is in this answer and nowhere else. */
import { Fw } from "../../../../fw/index.ts";
import { create_client_with_secret, public_client } from "../../../../oidc/admin/clients.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { client_called_urls, outbound_warnings } from "../../../../oidc/outbound/preflight.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { ClientInputSchema, ClientSchema } from "../schemas.ts";
import { checked_metadata, checked_subject_type, with_operator_settings } from "./metadata.ts";

export const AdminClientCreateRequest = Fw.Request("AdminClientCreateRequest", ClientInputSchema, { from: ["body"] });

export const AdminClientCreate = (idp: Provider) =>
  class AdminClientCreate extends Fw.Endpoint(AdminClientCreateRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/clients`;
    static openapi: OpenApiOperation = {
      summary: "Create a client (the answer holds its secret, once)",
      tag: "clients",
      body: ClientInputSchema,
      response: ClientSchema,
      status: 201,
    };

    async call() {
      const input = this.admin_client_create_request as Record<string, unknown>;
      const metadata = await with_operator_settings(idp, checked_metadata(idp, input), input);
      await checked_subject_type(idp, metadata, null);
      const { client, secret } = await create_client_with_secret(idp.store, metadata, idp.now());
      audit_target(this, { action: "client_registered", client_id: client.client_id });
      this.response.headers.set("location", `${ADMIN_API}/clients/${client.client_id}`);
      const shown = public_client(client);
      // A URL the outbound fence would refuse: created all the same, and said (`warnings`).
      const warnings = await outbound_warnings(client_called_urls(client.metadata), idp.config.outbound);
      return this.json({ ...shown, ...(secret === null ? {} : { client_secret: secret }), ...(warnings.length > 0 ? { warnings } : {}) }, 201);
    }
  };
