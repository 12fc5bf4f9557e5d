/**
 * POST /account/login/passkey/options: the WebAuthn options for signing in to the account page
 * with a passkey and no password (static/passkeys.js), as JSON. The challenge is bound to this
 * browser (its `idp_interaction` binding value); the sign-in form's token is required.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { interaction_cookie_name, read_cookie } from "../../../oidc/browser/cookies.ts";
import { check_form_token, form_token } from "../../../oidc/browser/form_tokens.ts";
import { authentication_options } from "../../../oidc/signin/passkeys/ceremony.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";

export const AccountPasskeyLoginOptionsRequest = Fw.Request("AccountPasskeyLoginOptionsRequest", z.object({ csrf: z.string().max(256).optional() }), { on_invalid: invalid_form });

/** What the passkey challenges of /account/login (account/login.ts) are bound to. */
export function account_login_binding(binding: string): string {
  return `account-login:${binding}`;
}

export const AccountPasskeyLoginOptions = (idp: Provider) =>
  class AccountPasskeyLoginOptions extends Fw.Endpoint(AccountPasskeyLoginOptionsRequest, Fw.Response.Json) {
    static route = "POST /account/login/passkey/options";

    async call() {
      const binding = read_cookie(this.cookies, interaction_cookie_name(idp));
      check_form_token(
        this.account_passkey_login_options_request.csrf,
        binding === null ? null : form_token(binding, "account_login"),
        "The sign-in form was not sent from this page. Open your account page and try again.",
      );
      return this.json(await authentication_options(idp, "login", account_login_binding(binding!), null));
    }
  };
