/**
 * POST /account/password: a signed-in user changes their password. The current password is
 * required (a browser left signed in is not enough), checked and throttled like a sign-in. The
 * new one is stored as argon2id; every OTHER session of the user ends and the tokens issued
 * through those sessions are revoked (whoever knew the old password is signed out); their clients
 * get back-channel logout (logout/bulk.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_values } from "../../pages/account.ts";
import { account_page_scripts } from "../../pages/passkeys.ts";
import { ACCOUNT_PATHS, account_session, account_url, check_account_csrf, type AccountSession } from "../../../oidc/browser/account_guard.ts";
import { record_event } from "../../../oidc/audit.ts";
import { hash_password } from "../../../platform/passwords.ts";
import { confirm_password } from "../../../oidc/signin/password.ts";
import { invalid_form } from "../../errors.ts";
import { clear_login_failures, login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../../../oidc/limits/login.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { end_user_sessions } from "../../../oidc/signin/sessions.ts";
import { with_backchannel_logout } from "../../../oidc/logout/bulk.ts";
import { check_password_policy, type PasswordOwner, type PasswordRules } from "../../../oidc/accounts/password_policy.ts";
import { send_password_changed, void_reset_links } from "../../../oidc/accounts/password_reset.ts";

export const AccountPasswordRequest = Fw.Request(
  "AccountPasswordRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    current_password: z.string().max(4096).optional(),
    new_password: z.string().max(4096).optional(),
    confirm_password: z.string().max(4096).optional(),
  }),
  { on_invalid: invalid_form },
);

/** Why a new password is refused, in plain words (the policy, password_policy.ts); null when it is fine. */
export function new_password_problem(password: string, confirm: string, owner: PasswordOwner, rules: PasswordRules): string | null {
  const refused = check_password_policy(password, owner, rules);
  if (refused !== null) return refused.replace(/^The password/, "The new password");
  if (password !== confirm) return "The two new passwords are not the same. Type them again.";
  return null;
}

export const AccountPassword = (idp: Provider) =>
  class AccountPassword extends Fw.Renderable(Fw.Endpoint(AccountPasswordRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ACCOUNT_PATHS.password}`;

    async call() {
      const session = await account_session(idp, this.cookies);
      if (session === null) return this.redirect_to(account_url(idp, "login"), 303);
      const input = this.account_password_request;
      check_account_csrf(session, input.csrf);
      const user = session.user;
      const ip = client_ip(this.context, idp.config);
      // Reserve, verify, release (oidc/limits/login.ts).
      const attempt = await reserve_login_attempt(idp, ip, user.username);
      if (!(await confirm_password(idp, user, input.current_password ?? "", ip))) {
        await login_attempt_failed(idp, attempt);
        await record_event(idp, { type: "password_change", outcome: "failure", user_id: user.id, ip });
        return this.failed(session, "Your current password is not right.");
      }
      await release_login_attempt(idp, attempt);
      const problem = new_password_problem(input.new_password ?? "", input.confirm_password ?? "", { username: user.username, email: user.email }, idp.config.passwords);
      if (problem !== null) return this.failed(session, problem);

      await idp.store.update_user(user.id, { password_hash: await hash_password(input.new_password!, idp.config.argon2) });
      const keep = session.session.id_hash;
      const { sessions_ended: ended } = await with_backchannel_logout(idp, user.id, () => end_user_sessions(idp.store, user.id, idp.now(), keep), keep);
      await clear_login_failures(idp, ip, user.username);
      // A password change voids the reset links mailed before it, and the owner is told by mail.
      await void_reset_links(idp.store, user.id);
      await send_password_changed(idp, user);
      await record_event(idp, { type: "password_change", outcome: "success", user_id: user.id, ip, details: { sessions_ended: ended } });
      return this.redirect_to(`${account_url(idp)}?done=password`, 303);
    }

    async failed(session: AccountSession, message: string) {
      return this.view("account", { ...(await account_values(idp, session, { password_error: message })), ...account_page_scripts(idp, this.response.headers) }, 400);
    }
  };
