/**
 * GET|POST /interaction/:id/login: the sign-in page. A wrong password and an unknown username
 * get the same page, message and (argon2id) work (oidc/signin/password.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { after_password } from "../../../oidc/signin/second_factor.ts";
import { sign_in } from "../../../oidc/signin/complete.ts";
import { AMR_PASSWORD } from "../../../oidc/signin/methods.ts";
import { account_url } from "../../../oidc/browser/account_guard.ts";
import { signup_link } from "../../../oidc/accounts/signup.ts";
import { sign_in_refusal } from "../../../oidc/accounts/account_status.ts";
import { forgot_password_url } from "../../../oidc/accounts/password_reset.ts";
import { status_page } from "../../pages/account_status.ts";
import { hinted_upstream, start_url, upstream_buttons } from "../../../oidc/federation/upstreams.ts";
import { login_prefill } from "../../../oidc/authorize/decision.ts";
import { display_name } from "../../../oidc/clients/metadata.ts";
import { WRONG_CREDENTIALS, check_credentials } from "../../../oidc/signin/password.ts";
import { PageError } from "../../../oidc/errors.ts";
import { invalid_form } from "../../errors.ts";
import { check_csrf, load_interaction, type Interaction, interaction_url } from "../../../oidc/authorize/interactions.ts";
import { layout_values, passkey_scripts } from "../../pages/layout.ts";
import { passkeys_usable } from "../../../oidc/signin/passkeys/rp_id.ts";
import { continue_after_sign_in } from "../../authorization_response.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";
import type { ClientRow } from "../../../store/types.ts";

export const LoginRequest = Fw.Request(
  "LoginRequest",
  z.object({
    id: z.string().max(128),
    username: z.string().max(256).optional(),
    password: z.string().max(4096).optional(),
    csrf: z.string().max(256).optional(),
  }),
  { on_invalid: invalid_form },
);

export const Login = (idp: Provider) =>
  class Login extends Fw.Renderable(Fw.Endpoint(LoginRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = "GET|POST /interaction/:id/login";

    async call() {
      const input = this.login_request;
      const interaction = await load_interaction(idp, input.id, this.cookies);
      // The account page's own sign-in has no application: its sign-in page is /account/login.
      if (interaction === null) return this.redirect_to(account_url(idp, "login"), this.request.method === "POST" ? 303 : 302);
      const client = await idp.store.get_client(interaction.request.client_id);
      if (client === null) throw new PageError("Unknown application", "The application that sent you here is no longer registered.", "invalid_client");
      if (this.request.method === "GET") {
        // login_hint=idp:NAME skips the chooser and goes straight to the upstream NAME (README, federation).
        const hinted = await hinted_upstream(idp, interaction.request.login_hint);
        if (hinted !== null) return this.redirect_to(start_url(idp, hinted, interaction.id));
        return this.page(interaction, client, login_prefill(interaction.request), null);
      }

      check_csrf(interaction, input.csrf);
      const username = (input.username ?? "").trim();
      const ip = client_ip(this.context, idp.config);
      const user = await check_credentials(idp, username, input.password ?? "", ip, client.client_id);
      if (user === null) return this.page(interaction, client, username, WRONG_CREDENTIALS);
      // Only active accounts sign in; the others are told what to do (account_status.ts).
      const refusal = sign_in_refusal(user);
      if (refusal !== null) {
        const { values, cookie } = await status_page(idp, this.cookies, user, refusal, interaction_url(idp, interaction.id, "login"));
        this.set_cookie(cookie.name, cookie.value, cookie.options);
        return this.view("message", values, 403);
      }

      // Two-step verification (RFC 6238): with an authenticator app, the password alone does not sign in.
      const second_factor = await after_password(idp, interaction, user);
      if (second_factor !== null) return this.redirect_to(second_factor, 303);

      // A new login replaces the browser's previous session (session fixation, and a different user).
      const { session, cookie } = await sign_in(idp, this.cookies, user, AMR_PASSWORD, ip, client.client_id, this.headers.get("user-agent"));
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      return continue_after_sign_in(this, idp, client, interaction, session);
    }

    async page(interaction: Interaction, client: ClientRow, username: string, error: string | null) {
      // Passkeys (static/passkeys.js) need our own scripts on this page; none where they cannot work (rp_id.ts).
      set_page_headers(this.response.headers, interaction.request.redirect_uri, passkeys_usable(idp.config));
      const passkey_base = `${idp.config.issuer}/interaction/${encodeURIComponent(interaction.id)}/passkey`;
      return this.view("login", {
        ...layout_values(idp, "Sign in"),
        ...(passkeys_usable(idp.config) ? { scripts: passkey_scripts(idp), passkey: { options: `${passkey_base}/options`, action: passkey_base } } : { passkey: null }),
        client_name: display_name(client),
        action: interaction_url(idp, interaction.id, "login"),
        csrf: interaction.csrf,
        username,
        error,
        signup_url: signup_link(idp, interaction.id),
        forgot_url: forgot_password_url(idp, interaction.id),
        // Without mail (production without SMTP) the page says why there is no link.
        forgot_unavailable: !idp.mail.enabled,
        upstreams: await upstream_buttons(idp, interaction.id),
      });
    }
  };
