/**
 * POST /account/passkeys/options: the WebAuthn registration options for adding a passkey on the
 * account page (static/passkeys.js), as JSON. Re-authentication first: the user's password when
 * they have one (throttled like a sign-in), else a sign-in less than REAUTH_SECONDS ago. The
 * challenge is bound to this session.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_session, check_account_csrf } from "../../../oidc/browser/account_guard.ts";
import { login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../../../oidc/limits/login.ts";
import { registration_options } from "../../../oidc/signin/passkeys/ceremony.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { confirm_password } from "../../../oidc/signin/password.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { PASSKEY_PATHS } from "../../pages/passkeys.ts";
import { request_translator } from "../../middleware/locale.ts";

export const AccountPasskeyOptionsRequest = Fw.Request(
  "AccountPasskeyOptionsRequest",
  z.object({ csrf: z.string().max(256).optional(), password: z.string().max(4096).optional() }),
  { on_invalid: invalid_form },
);

/** A user without a password adds a passkey only this soon after signing in (OWASP ASVS V3.7.1: re-authenticate before a sensitive change). */
export const REAUTH_SECONDS = 10 * 60;

/** What the challenge of a registration is bound to: the session. */
export function registration_binding(session_id_hash: string): string {
  return `account:${session_id_hash}`;
}

export const AccountPasskeyOptions = (idp: Provider) =>
  class AccountPasskeyOptions extends Fw.Endpoint(AccountPasskeyOptionsRequest, Fw.Response.Json) {
    static route = `POST ${PASSKEY_PATHS.options}`;

    async call() {
      // The refusals are shown by static/passkeys.js as they are: in the page's language.
      const tr = request_translator(this.context, idp.config.default_locale);
      const session = await account_session(idp, this.cookies);
      if (session === null) return this.json({ error: tr.text("You are signed out. Reload the page and sign in again.") }, 401);
      const input = this.account_passkey_options_request;
      check_account_csrf(session, input.csrf);
      const user = session.user;
      if (user.password_hash !== "") {
        const ip = client_ip(this.context, idp.config);
        const attempt = await reserve_login_attempt(idp, ip, user.username);
        if (!(await confirm_password(idp, user, input.password ?? "", ip))) {
          await login_attempt_failed(idp, attempt);
          return this.json({ error: tr.text("Your password is not right."), field: "password" }, 400);
        }
        await release_login_attempt(idp, attempt);
      } else if (idp.now() - session.session.auth_time > REAUTH_SECONDS) {
        return this.json({ error: tr.text("For your security, sign out and sign in again, then add the passkey.") }, 400);
      }
      return this.json(await registration_options(idp, user, registration_binding(session.session.id_hash)));
    }
  };
