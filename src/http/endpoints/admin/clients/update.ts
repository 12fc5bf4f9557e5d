/**
 * PATCH /admin/api/v1/clients/:client_id, with If-Match: the members sent replace the stored
 * ones (null removes one), the result is checked whole as a registration would be. A client that
 * moves to a secret-based token_endpoint_auth_method without a secret gets one, in this answer
 * only (`client_secret`); one that moves away from secrets loses its secret.
 */
import { Fw } from "../../../../fw/index.ts";
import { auth_method_of, public_client } from "../../../../oidc/admin/clients.ts";
import { secret_for_method } from "../../../../oidc/clients/method_secret.ts";
import { lost_write } from "../../../../oidc/admin/etag.ts";
import { check_admin_client_change } from "../../../../oidc/admin/lasting_power.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { client_called_urls, outbound_warnings } from "../../../../oidc/outbound/preflight.ts";
import { ADMIN_API, audit_target, require_match, with_etag, type OpenApiOperation } from "../common.ts";
import { ClientInputSchema, ClientSchema } from "../schemas.ts";
import { client_of } from "./find.ts";
import { changed_metadata, checked_subject_type, with_operator_settings } from "./metadata.ts";

export const AdminClientUpdateRequest = Fw.Request("AdminClientUpdateRequest", ClientInputSchema, { from: ["body"] });

export const AdminClientUpdate = (idp: Provider) =>
  class AdminClientUpdate extends Fw.Endpoint(AdminClientUpdateRequest, Fw.Response.Json) {
    static route = `PATCH ${ADMIN_API}/clients/:client_id`;
    static openapi: OpenApiOperation = { summary: "Change a client's metadata", tag: "clients", body: ClientInputSchema, response: ClientSchema, etag: true, if_match: true };

    async call() {
      const client = await client_of(idp, this.route_params.client_id ?? "");
      require_match(this, public_client(client));
      const input = this.admin_client_update_request as Record<string, unknown>;
      check_admin_client_change(client, input);
      const metadata = await with_operator_settings(idp, changed_metadata(idp, client.metadata, input), input, client.metadata);
      await checked_subject_type(idp, metadata, client.client_id);
      // Compare-and-set on the version whose ETag was checked (store/types/common.ts IfVersion):
      // a change written since makes this one 412, never a lost update.
      // A move to a secret-based method makes a secret, answered here once; a move away drops it (oidc/clients/method_secret.ts).
      const { patch, secret } = secret_for_method(client, auth_method_of(metadata), idp.now());
      const updated = await idp.store.update_client(client.client_id, { metadata, ...patch, updated_at: idp.now() }, { if_version: client.version });
      if (updated === null) throw await lost_write(idp.store.get_client(client.client_id), "client", client.client_id);
      audit_target(this, { action: "client_updated", client_id: client.client_id, details: { changed: Object.keys(input), ...(secret !== null && { secret_issued: true }) } });
      // The ETag is of the client alone; `warnings` names URLs the outbound fence would refuse.
      const warnings = await outbound_warnings(client_called_urls(updated.metadata), idp.config.outbound);
      return this.json({ ...with_etag(this, public_client(updated)), ...(secret === null ? {} : { client_secret: secret }), ...(warnings.length > 0 ? { warnings } : {}) });
    }
  };
