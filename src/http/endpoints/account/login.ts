/**
 * GET|POST /account/login: the sign-in of the account page itself (a first-party sign-in, with
 * no application and no authorization request). Same page, same checks and same throttle as the
 * sign-in for an application; users with an authenticator app go on to the two-factor page.
 *
 * CSRF: the form token is HMAC-SHA256(the browser's `idp_interaction` binding value,
 * "csrf:account-login"), the same construction as an interaction's (interactions.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { after_account_sign_in, pending_return_path } from "../../../oidc/browser/return_path.ts";
import { pending_sp_name } from "../../../oidc/saml/pending.ts";
import { begin_for_account, has_any, second_factor_required, second_factors } from "../../../oidc/signin/second_factor.ts";
import { sign_in } from "../../../oidc/signin/complete.ts";
import { AMR_PASSWORD } from "../../../oidc/signin/methods.ts";
import { ACCOUNT_PATHS, account_session, account_url } from "../../../oidc/browser/account_guard.ts";
import { signup_link } from "../../../oidc/accounts/signup.ts";
import { sign_in_refusal } from "../../../oidc/accounts/account_status.ts";
import { forgot_password_url } from "../../../oidc/accounts/password_reset.ts";
import { status_page } from "../../pages/account_status.ts";
import { upstream_buttons } from "../../../oidc/federation/upstreams.ts";
import { cookie_options, interaction_cookie_name, read_cookie } from "../../../oidc/browser/cookies.ts";
import { WRONG_CREDENTIALS, check_credentials } from "../../../oidc/signin/password.ts";
import { random_token } from "../../../oidc/crypto/secrets.ts";
import { check_form_token, form_token } from "../../../oidc/browser/form_tokens.ts";
import { invalid_form } from "../../errors.ts";
import { layout_values, passkey_scripts } from "../../pages/layout.ts";
import { passkeys_usable } from "../../../oidc/signin/passkeys/rp_id.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const AccountLoginRequest = Fw.Request(
  "AccountLoginRequest",
  z.object({ username: z.string().max(256).optional(), password: z.string().max(4096).optional(), csrf: z.string().max(256).optional() }),
  { on_invalid: invalid_form },
);

export const AccountLogin = (idp: Provider) =>
  class AccountLogin extends Fw.Renderable(Fw.Endpoint(AccountLoginRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET|POST ${ACCOUNT_PATHS.login}`;

    async call() {
      const input = this.account_login_request;
      if (this.request.method === "GET") {
        // prompt=login: sign in again even when signed in (a SAML request with ForceAuthn, oidc/saml/sso.ts).
        if (this.query.prompt !== "login" && (await account_session(idp, this.cookies)) !== null) return this.redirect_to(account_url(idp));
        return this.page("", null);
      }
      const binding = read_cookie(this.cookies, interaction_cookie_name(idp));
      check_form_token(
        input.csrf,
        binding === null ? null : form_token(binding, "account_login"),
        "The sign-in form was not sent from this page. Open your account page and try again.",
      );
      const username = (input.username ?? "").trim();
      const ip = client_ip(this.context, idp.config);
      const user = await check_credentials(idp, username, input.password ?? "", ip, null);
      if (user === null) return this.page(username, WRONG_CREDENTIALS);
      // Only active accounts sign in; the others are told what to do (account_status.ts).
      const refusal = sign_in_refusal(user);
      if (refusal !== null) {
        const { values, cookie } = await status_page(idp, this.cookies, user, refusal, account_url(idp, "login"));
        this.set_cookie(cookie.name, cookie.value, cookie.options);
        return this.view("message", values, 403);
      }
      // A second factor when the user has one (TOTP, a passkey), or must add one (IDP_REQUIRE_2FA=all).
      const has_factor = has_any(await second_factors(idp, user));
      if (has_factor || (await second_factor_required(idp, null, user))) {
        const { url, cookie } = await begin_for_account(idp, user, this.cookies, !has_factor);
        this.set_cookie(cookie.name, cookie.value, cookie.options);
        return this.redirect_to(url, 303);
      }
      const { cookie } = await sign_in(idp, this.cookies, user, AMR_PASSWORD, ip, null, this.headers.get("user-agent"));
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      const next = after_account_sign_in(idp, this.cookies);
      if (next.clear !== null) this.set_cookie(next.clear.name, next.clear.value, next.clear.options);
      return this.redirect_to(next.url, 303);
    }

    async page(username: string, error: string | null) {
      // The form token is bound to this browser: keep its binding value, or give it one.
      const binding = read_cookie(this.cookies, interaction_cookie_name(idp)) ?? random_token(32);
      this.set_cookie(interaction_cookie_name(idp), binding, cookie_options(idp, idp.config.tokens.interaction_ttl));
      // Passkeys (static/passkeys.js) need our own scripts on this page; none where they cannot work (rp_id.ts).
      set_page_headers(this.response.headers, null, passkeys_usable(idp.config));
      const passkey_base = `${account_url(idp, "login")}/passkey`;
      return this.view("login", {
        ...layout_values(idp, "Sign in"),
        ...(passkeys_usable(idp.config) ? { scripts: passkey_scripts(idp), passkey: { options: `${passkey_base}/options`, action: passkey_base } } : { passkey: null }),
        // Signing in for a SAML application (oidc/saml/pending.ts): its name, as for an OpenID client.
        client_name: (await pending_sp_name(idp, pending_return_path(idp, this.cookies))) ?? "your account",
        action: account_url(idp, "login"),
        csrf: form_token(binding, "account_login"),
        username,
        error,
        signup_url: signup_link(idp),
        forgot_url: forgot_password_url(idp),
        // Without mail (production without SMTP) the page says why there is no link.
        forgot_unavailable: !idp.mail.enabled,
        upstreams: await upstream_buttons(idp, null),
      });
    }
  };
