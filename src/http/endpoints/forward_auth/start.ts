/**
 * GET /forward-auth/start?rd=URL: where the forward-auth check sends a browser that must sign in
 * (oidc/forward_auth/start.ts has the rules). On the provider's own host, so the provider's
 * session cookie says who it is and the forward-auth cookie can be set on the cookie domain.
 *
 * - `rd` no registered application: 400 page, no redirect.
 * - Not signed in: the account's sign-in, which comes back here once done (a return cookie,
 *   oidc/browser/return_path.ts), with a second factor if the user has one, as always.
 * - Signed in without the second factor the URL needs: the two-factor page (or adding a factor),
 *   which comes back here the same way.
 * - Outside the application's groups: 403 page.
 * - Otherwise the forward-auth cookie and a redirect to `rd` (a page that moves on by itself right
 *   after a sign-in form, see below).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { account_url } from "../../../oidc/browser/account_guard.ts";
import { return_cookie } from "../../../oidc/browser/return_path.ts";
import { PageError } from "../../../oidc/errors.ts";
import { FORWARD_AUTH_PATHS } from "../../../oidc/forward_auth/paths.ts";
import { NOT_REGISTERED, start_forward_auth } from "../../../oidc/forward_auth/start.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { begin_for_account } from "../../../oidc/signin/second_factor.ts";
import { current_session } from "../../../oidc/signin/sessions.ts";
import { invalid_page_request } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { UNKNOWN_TITLE, denied_values } from "../../pages/forward_auth.ts";
import { layout_values } from "../../pages/layout.ts";

export const ForwardAuthStartRequest = Fw.Request("ForwardAuthStartRequest", z.object({ rd: z.string().max(8192).optional() }), {
  on_invalid: invalid_page_request(UNKNOWN_TITLE, () => NOT_REGISTERED),
});

export const ForwardAuthStart = (idp: Provider) =>
  class ForwardAuthStart extends Fw.Renderable(Fw.Endpoint(ForwardAuthStartRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${FORWARD_AUTH_PATHS.start}`;

    async call() {
      this.response.headers.set("cache-control", "no-store");
      const active = await current_session(idp, this.cookies);
      const outcome = await start_forward_auth(idp, this.forward_auth_start_request.rd, this.cookies, active, client_ip(this.context, idp.config));
      switch (outcome.kind) {
        case "invalid":
          throw new PageError(UNKNOWN_TITLE, outcome.message);
        case "sign_in":
          this.come_back(outcome.return_path);
          return this.redirect_to(account_url(idp, "login"), 302);
        case "step_up": {
          const { url, cookie } = await begin_for_account(idp, outcome.user, this.cookies, outcome.enrol, outcome.first_amr);
          this.set_cookie(cookie.name, cookie.value, cookie.options);
          this.come_back(outcome.return_path);
          return this.redirect_to(url, 302);
        }
        case "denied":
          return this.view("message", denied_values(idp, outcome.app, active!.user), 403);
        case "go":
          if (outcome.cookie !== null) this.set_cookie(outcome.cookie.name, outcome.cookie.value, outcome.cookie.options);
          // Right after a sign-in form (the navigation began on this origin), a redirect to the
          // application would end a form submission's chain at another origin, which the sign-in
          // page's CSP form-action refuses (CSP 3 §6.3.1): a page that moves on by itself instead.
          // Fetch Metadata (Sec-Fetch-Site) says so; a browser that sends none gets the page too.
          if ((this.headers.get("sec-fetch-site") ?? "same-origin") === "same-origin") {
            return this.view("forward_auth_continue", { ...layout_values(idp, "Signed in"), next: outcome.url, app: outcome.app.name });
          }
          return this.redirect_to(outcome.url, 302);
      }
    }

    /** The next account sign-in in this browser returns here (browser/return_path.ts). */
    come_back(path: string): void {
      const cookie = return_cookie(idp, path);
      if (cookie !== null) this.set_cookie(cookie.name, cookie.value, cookie.options);
    }
  };
