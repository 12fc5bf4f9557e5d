/**
 * POST /account/delete: the owner deletes their account (IDP_ACCOUNT_SELF_DELETE; rules in
 * oidc/accounts/profile.ts). Re-authentication: the current password, checked and throttled like
 * a sign-in (an account without a password types its username instead), and the box "I
 * understand" ticked. Then every session ends (back-channel logout), tokens, consents, passkeys
 * and attributes go with the account, and the event is audited.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { layout_values } from "../../pages/layout.ts";
import { account_values } from "../../pages/account.ts";
import { account_page_scripts } from "../../pages/passkeys.ts";
import { delete_own_account, self_delete_problem } from "../../../oidc/accounts/profile.ts";
import { ACCOUNT_PATHS, account_session, account_url, check_account_csrf, type AccountSession } from "../../../oidc/browser/account_guard.ts";
import { login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../../../oidc/limits/login.ts";
import { PageError } from "../../../oidc/errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { confirm_password } from "../../../oidc/signin/password.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const AccountDeleteRequest = Fw.Request(
  "AccountDeleteRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    current_password: z.string().max(4096).optional(),
    confirm_username: z.string().max(1024).optional(),
    understood: z.string().max(16).optional(),
  }),
  { on_invalid: invalid_form },
);

export const AccountDelete = (idp: Provider) =>
  class AccountDelete extends Fw.Renderable(Fw.Endpoint(AccountDeleteRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ACCOUNT_PATHS.delete}`;

    async call() {
      const session = await account_session(idp, this.cookies);
      if (session === null) return this.redirect_to(account_url(idp, "login"), 303);
      const input = this.account_delete_request;
      check_account_csrf(session, input.csrf);
      const user = session.user;
      const refused = await self_delete_problem(idp, user);
      if (refused !== null) {
        if (!idp.config.account_self_delete) throw new PageError("Not available", refused, "invalid_request");
        return this.failed(session, refused);
      }
      if (input.understood !== "yes") return this.failed(session, "Tick the box to confirm that you want to delete your account.");
      const ip = client_ip(this.context, idp.config);
      if (user.password_hash === "") {
        if ((input.confirm_username ?? "").trim().toLowerCase() !== user.username.toLowerCase()) return this.failed(session, "Type your username to confirm.");
      } else {
        // Reserve, verify, release (oidc/limits/login.ts), as for a password change.
        const attempt = await reserve_login_attempt(idp, ip, user.username);
        if (!(await confirm_password(idp, user, input.current_password ?? "", ip))) {
          await login_attempt_failed(idp, attempt);
          return this.failed(session, "Your password is not right.");
        }
        await release_login_attempt(idp, attempt);
      }
      await delete_own_account(idp, user, ip);
      return this.view("message", {
        ...layout_values(idp, "Account deleted"),
        heading: "Account deleted",
        message: "Your account and everything kept with it were deleted. Applications you used can no longer sign you in.",
      });
    }

    async failed(session: AccountSession, message: string) {
      return this.view("account", { ...(await account_values(idp, session, { delete_error: message })), ...account_page_scripts(idp, this.response.headers) }, 400);
    }
  };
