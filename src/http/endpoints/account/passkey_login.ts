/**
 * POST /account/login/passkey: signs in to the account page with a passkey and no password (the
 * result of the ceremony static/passkeys.js ran with passkey_login_options.ts's options).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { after_account_sign_in } from "../../../oidc/browser/return_path.ts";
import { sign_in } from "../../../oidc/signin/complete.ts";
import { interaction_cookie_name, read_cookie } from "../../../oidc/browser/cookies.ts";
import { check_form_token, form_token } from "../../../oidc/browser/form_tokens.ts";
import { parse_response, verify_assertion } from "../../../oidc/signin/passkeys/ceremony.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { passkey_refused } from "../interaction/passkey.ts";
import { account_login_binding } from "./passkey_login_options.ts";

export const AccountPasskeyLoginRequest = Fw.Request(
  "AccountPasskeyLoginRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    response: z
      .string()
      .max(64 * 1024)
      .optional(),
  }),
  { on_invalid: invalid_form },
);

export const AccountPasskeyLogin = (idp: Provider) =>
  class AccountPasskeyLogin extends Fw.Endpoint(AccountPasskeyLoginRequest, Fw.Response.Redirect) {
    static route = "POST /account/login/passkey";

    async call() {
      const input = this.account_passkey_login_request;
      const binding = read_cookie(this.cookies, interaction_cookie_name(idp));
      check_form_token(
        input.csrf,
        binding === null ? null : form_token(binding, "account_login"),
        "The sign-in form was not sent from this page. Open your account page and try again.",
      );
      const ip = client_ip(this.context, idp.config);
      const result = await verify_assertion(idp, "login", account_login_binding(binding!), parse_response(input.response), null, { ip, client_id: null });
      if (!result.ok) throw passkey_refused(result);
      const { cookie } = await sign_in(idp, this.cookies, result.user, result.amr, ip, null, this.headers.get("user-agent"));
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      const next = after_account_sign_in(idp, this.cookies);
      if (next.clear !== null) this.set_cookie(next.clear.name, next.clear.value, next.clear.options);
      return this.redirect_to(next.url, 303);
    }
  };
