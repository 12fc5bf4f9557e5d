/**
 * GET /federation/:name/callback: the upstream identity provider's answer (its redirect URI,
 * registered there). The rules (oidc/federation/flow.ts) check state, browser, issuer, ID Token
 * and find or make the local account; then the browser's session starts (amr "fed", RFC 8176)
 * and the interaction it came from resumes, or the account page opens.
 *
 * The next step is a page that navigates on (meta refresh, with a link), not a redirect: the
 * upstream's answer often follows its own sign-in form, and Chromium checks every redirect after
 * a form POST against that form's CSP form-action (CSP Level 3 §6.4.2), which names us but not
 * the application we send the browser on to.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { not_active } from "../../../oidc/accounts/account_status.ts";
import { after_upstream } from "../../../oidc/signin/second_factor.ts";
import { sign_in } from "../../../oidc/signin/complete.ts";
import { account_url } from "../../../oidc/browser/account_guard.ts";
import { after_account_sign_in } from "../../../oidc/browser/return_path.ts";
import { interaction_cookie_name, read_cookie } from "../../../oidc/browser/cookies.ts";
import { PageError } from "../../../oidc/errors.ts";
import { complete_upstream } from "../../../oidc/federation/flow.ts";
import { load_interaction } from "../../../oidc/authorize/interactions.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { respond } from "../../authorization_response.ts";
import { after_sign_in } from "../../../oidc/signin/complete.ts";
import { query_url } from "../../../oidc/authorize/decision.ts";
import { jarm_encoded } from "../../../oidc/tokens/jwt_responses.ts";
import { layout_values } from "../../pages/layout.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const FederationCallbackRequest = Fw.Request("FederationCallbackRequest", z.object({ name: z.string().max(64) }), { on_invalid: invalid_form });

export const FederationCallback = (idp: Provider) =>
  class FederationCallback extends Fw.Renderable(Fw.Endpoint(FederationCallbackRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = "GET /federation/:name/callback";

    async call() {
      const ip = client_ip(this.context, idp.config);
      const query = new URL(this.request.url).searchParams;
      const binding = read_cookie(this.cookies, interaction_cookie_name(idp));
      const outcome = await complete_upstream(idp, this.federation_callback_request.name, query, binding, ip);
      if (outcome.kind === "linked") return this.go_on(account_url(idp), outcome.upstream.display_name);
      // Only active accounts sign in (account_status.ts).
      const inactive = not_active(outcome.user);
      if (inactive !== null) throw inactive;
      const interaction = outcome.interaction_id === null ? null : await load_interaction(idp, outcome.interaction_id, this.cookies);
      const client = interaction === null ? null : await idp.store.get_client(interaction.request.client_id);
      if (interaction !== null && client === null) throw new PageError("Unknown application", "The application that sent you here is no longer registered.", "invalid_client");
      // The local account's second factor (or its enrolment, IDP_REQUIRE_2FA / require_2fa /
      // acr_values) after the upstream's sign-in, unless the upstream's own multi-factor sign-in
      // is trusted (trust_upstream_mfa): no session starts before it.
      const second = await after_upstream(idp, interaction, outcome.user, outcome.amr, outcome.upstream_mfa, this.cookies);
      if (second !== null) {
        if (second.cookie !== null) this.set_cookie(second.cookie.name, second.cookie.value, second.cookie.options);
        return this.go_on(second.url, outcome.upstream.display_name);
      }
      // A new sign-in replaces the browser's previous session (session fixation, another user).
      const { session, cookie } = await sign_in(idp, this.cookies, outcome.user, outcome.amr, ip, client?.client_id ?? null, this.headers.get("user-agent"));
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      if (interaction === null || client === null) {
        // The account's own sign-in: back where it was asked for (the admin console, a SAML request; return_path.ts).
        const back = after_account_sign_in(idp, this.cookies);
        if (back.clear !== null) this.set_cookie(back.clear.name, back.clear.value, back.clear.options);
        return this.go_on(back.url, outcome.upstream.display_name);
      }
      const next = await after_sign_in(idp, client, interaction, session);
      if (next.kind === "page") return this.go_on(next.url, outcome.upstream.display_name);
      const response = await jarm_encoded(idp, next.response);
      if (response.response_mode === "query" || response.response_mode === "fragment") return this.go_on(query_url(response), outcome.upstream.display_name);
      return respond(this, idp, response, 200);
    }

    go_on(next: string, upstream: string) {
      this.response.headers.set("cache-control", "no-store");
      // The next URL may carry an authorization code: not to be kept or sent on as a referrer.
      this.response.headers.set("referrer-policy", "no-referrer");
      return this.view("federation_continue", { ...layout_values(idp, "Signed in"), next, upstream });
    }
  };
