/** DELETE /admin/api/v1/users/:id/grants/:client_id: withdraws the consent and revokes the client's tokens for the user. */
import { Fw } from "../../../../fw/index.ts";
import { not_found } from "../../../../oidc/admin/errors.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, type OpenApiOperation } from "../common.ts";
import { user_of } from "./find.ts";

export const AdminUserRevokeGrant = (idp: Provider) =>
  class AdminUserRevokeGrant extends Fw.Endpoint(Fw.EmptyRequest, Fw.Response.Empty) {
    static route = `DELETE ${ADMIN_API}/users/:id/grants/:client_id`;
    static openapi: OpenApiOperation = { summary: "Revoke a grant and the tokens issued under it", tag: "grants", status: 204 };

    async call() {
      const user = await user_of(idp, this.route_params.id ?? "");
      const client_id = this.route_params.client_id ?? "";
      audit_target(this, { action: "consent_revoked", user_id: user.id, client_id });
      const had = await idp.store.delete_grant(user.id, client_id);
      // RFC 7009 §2.1: tokens based on the authorization go with it.
      const revoked = await idp.store.revoke_for_user_client(user.id, client_id, idp.now());
      if (!had && revoked === 0) throw not_found("grant of that user for client", client_id);
      audit_target(this, { action: "consent_revoked", user_id: user.id, client_id, details: { tokens_revoked: revoked } });
      return new Fw.Response.Empty();
    }
  };
