/**
 * POST /account/grants: a signed-in user removes an application's access. The consent goes
 * (the next authorization asks again) and every token the application holds for the user is
 * revoked (refresh tokens included), so access ends now, not when the tokens expire.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ACCOUNT_PATHS, account_session, account_url, check_account_csrf } from "../../../oidc/browser/account_guard.ts";
import { record_event } from "../../../oidc/audit.ts";
import { invalid_form } from "../../errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const AccountGrantsRequest = Fw.Request("AccountGrantsRequest", z.object({ csrf: z.string().max(256).optional(), client_id: z.string().min(1).max(256) }), {
  on_invalid: invalid_form,
});

export const AccountGrants = (idp: Provider) =>
  class AccountGrants extends Fw.Endpoint(AccountGrantsRequest, Fw.Response.Redirect) {
    static route = `POST ${ACCOUNT_PATHS.grants}`;

    async call() {
      const session = await account_session(idp, this.cookies);
      if (session === null) return this.redirect_to(account_url(idp, "login"), 303);
      const input = this.account_grants_request;
      check_account_csrf(session, input.csrf);
      const user_id = session.user.id;
      const now = idp.now();
      const removed = await idp.store.delete_grant(user_id, input.client_id);
      const revoked = await idp.store.revoke_for_user_client(user_id, input.client_id, now);
      if (removed || revoked > 0) {
        await record_event(idp, {
          type: "consent_revoked",
          outcome: "success",
          user_id,
          client_id: input.client_id,
          ip: client_ip(this.context, idp.config) || null,
          at: now,
          details: { tokens_revoked: revoked, by: "user" },
        });
      }
      return this.redirect_to(`${account_url(idp)}?done=revoked`, 303);
    }
  };
