/**
 * POST /account/identities: a signed-in user unlinks one of their upstream accounts
 * (`upstream` and `subject` as listed on the account page). Never the last way to sign in: an
 * account with no password, no passkey and no other linked identity keeps this one.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_session, account_url, check_account_csrf } from "../../../oidc/browser/account_guard.ts";
import { record_event } from "../../../oidc/audit.ts";
import { PageError } from "../../../oidc/errors.ts";
import { can_unlink } from "../../../oidc/federation/upstreams.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const ACCOUNT_IDENTITIES_PATH = "/account/identities";

export const AccountIdentitiesRequest = Fw.Request(
  "AccountIdentitiesRequest",
  z.object({ csrf: z.string().max(256).optional(), upstream: z.string().max(64), subject: z.string().max(512) }),
  { on_invalid: invalid_form },
);

export const AccountIdentities = (idp: Provider) =>
  class AccountIdentities extends Fw.Endpoint(AccountIdentitiesRequest, Fw.Response.Redirect) {
    static route = `POST ${ACCOUNT_IDENTITIES_PATH}`;

    async call() {
      const current = await account_session(idp, this.cookies);
      if (current === null) return this.redirect_to(account_url(idp, "login"), 303);
      const input = this.account_identities_request;
      check_account_csrf(current, input.csrf);
      if (!(await can_unlink(idp, current.user.id, input.upstream, input.subject))) {
        throw new PageError("This is your only way to sign in", "Set a password or add a passkey first, then unlink this account.", "access_denied");
      }
      const removed = await idp.store.unlink_identity(current.user.id, input.upstream, input.subject);
      const ip = client_ip(this.context, idp.config);
      if (removed) await record_event(idp, { type: "federation_unlink", outcome: "success", user_id: current.user.id, ip, details: { upstream: input.upstream } });
      return this.redirect_to(`${account_url(idp)}?done=identity_unlinked`, 303);
    }
  };
