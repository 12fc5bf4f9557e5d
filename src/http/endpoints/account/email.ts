/**
 * POST /account/email: a signed-in user asks to change their e-mail address. The current
 * password is required, checked and throttled exactly as for a password change (password.ts);
 * then a confirmation link goes to the new address and a notice to the old one
 * (oidc/accounts/email_change.ts). The address changes only when the link is followed.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_values } from "../../pages/account.ts";
import { account_page_scripts } from "../../pages/passkeys.ts";
import { new_address_problem, request_email_change } from "../../../oidc/accounts/email_change.ts";
import { ACCOUNT_PATHS, account_session, account_url, check_account_csrf, type AccountSession } from "../../../oidc/browser/account_guard.ts";
import { record_event } from "../../../oidc/audit.ts";
import { confirm_password } from "../../../oidc/signin/password.ts";
import { invalid_form } from "../../errors.ts";
import { login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../../../oidc/limits/login.ts";
import { PageError } from "../../../oidc/errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const AccountEmailRequest = Fw.Request(
  "AccountEmailRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    new_email: z.string().max(1024).optional(),
    current_password: z.string().max(4096).optional(),
  }),
  { on_invalid: invalid_form },
);

export const AccountEmail = (idp: Provider) =>
  class AccountEmail extends Fw.Renderable(Fw.Endpoint(AccountEmailRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ACCOUNT_PATHS.email}`;

    async call() {
      const session = await account_session(idp, this.cookies);
      if (session === null) return this.redirect_to(account_url(idp, "login"), 303);
      const input = this.account_email_request;
      check_account_csrf(session, input.csrf);
      if (!idp.mail.enabled)
        throw new PageError(
          "E-mail cannot be changed here",
          "This server cannot send mail, so it cannot confirm a new address. Ask an administrator to change it.",
          "invalid_request",
        );
      const user = session.user;
      const typed = (input.new_email ?? "").trim();
      const checked = new_address_problem(user, typed);
      if ("problem" in checked) return this.failed(session, checked.problem, typed);
      const ip = client_ip(this.context, idp.config);
      // Reserve, verify, release (oidc/limits/login.ts), as for a password change.
      const attempt = await reserve_login_attempt(idp, ip, user.username);
      if (!(await confirm_password(idp, user, input.current_password ?? "", ip))) {
        await login_attempt_failed(idp, attempt);
        await record_event(idp, { type: "email_change_requested", outcome: "failure", user_id: user.id, ip });
        return this.failed(session, "Password: that is not your password, so the address was not changed.", typed);
      }
      await release_login_attempt(idp, attempt);
      await request_email_change(idp, user, checked.email, ip);
      return this.redirect_to(`${account_url(idp)}?done=email_sent`, 303);
    }

    async failed(session: AccountSession, message: string, new_email: string) {
      return this.view("account", { ...(await account_values(idp, session, { email_error: message, new_email })), ...account_page_scripts(idp, this.response.headers) }, 400);
    }
  };
