/**
 * GET|POST /logout: the end_session_endpoint (OIDC RP-Initiated Logout 1.0 §2).
 *
 * 1. The request is checked (logout/request.ts); anything wrong is an error page and the user
 *    stays signed in — never a redirect to an unchecked URI.
 * 2. No session in this browser: nothing to end; straight to the end (redirect or page).
 * 3. A hint that is an ID Token of this session: signed out at once. Otherwise the confirmation
 *    page (logout/confirmation.ts says why), which posts to /logout/confirm.
 * 4. After sign-out (logout/end_session.ts): §3 redirect to the registered
 *    post_logout_redirect_uri with state — 303 after a POST — or the "signed out" page.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { describe_issues, to_http } from "../../errors.ts";
import { clear_session_cookie, signed_out_answer, signed_out_csp } from "../../pages/signed_out.ts";
import { confirm_fields, confirm_page_values, csrf_for, needs_confirmation } from "../../../oidc/logout/confirmation.ts";
import { end_session } from "../../../oidc/logout/end_session.ts";
import type { FrontChannelFrame } from "../../../oidc/logout/frontchannel.ts";
import { invalid_logout, logout_params, validate_logout, type ValidLogout } from "../../../oidc/logout/request.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import { layout_values } from "../../pages/layout.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";
import { current_session, type ActiveSession } from "../../../oidc/signin/sessions.ts";

export const LogoutRequest = Fw.Request("LogoutRequest", z.object(logout_params), {
  on_invalid: (issues) => to_http(invalid_logout(`The sign-out request is malformed (${describe_issues(issues)}). You have not been signed out.`)),
});

export const Logout = (idp: Provider) =>
  class Logout extends Fw.Renderable(Fw.Endpoint(LogoutRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET|POST ${PATHS.logout}`;

    async call() {
      // After a POST the browser must GET the next page: 303, never 307.
      const status = this.request.method === "POST" ? 303 : 302;
      const request = await validate_logout(idp, this.logout_request);
      const active = await current_session(idp, this.cookies);
      if (active !== null && needs_confirmation(idp, request, active)) return this.confirm(request, active);
      let frames: FrontChannelFrame[] = [];
      if (active !== null) {
        frames = (await end_session(idp, active, { client_id: request.client?.client_id ?? null, ip: client_ip(this.context, idp.config) || null, initiator: "rp" })).frontchannel;
      }
      // Also a stale cookie of a session that already ended goes.
      const cookie = clear_session_cookie(idp, this.cookies);
      if (cookie !== null) this.set_cookie(cookie.name, cookie.value, cookie.options);
      const answer = signed_out_answer(idp, request, frames);
      // Front-Channel Logout §3: the page may frame exactly the clients' logout URIs.
      const csp = signed_out_csp(frames);
      if (csp !== null) this.response.headers.set("content-security-policy", csp);
      if (answer.kind === "redirect") return this.redirect_to(answer.url, status);
      return this.view("logged_out", answer.values);
    }

    confirm(request: ValidLogout, active: ActiveSession) {
      // The form's POST may be redirected to the client: CSP form-action must allow its origin.
      set_page_headers(this.response.headers, request.post_logout_redirect_uri);
      const csrf = csrf_for(idp, this.cookies, confirm_fields(request))!;
      return this.view("logout", { ...layout_values(idp, "Sign out?"), ...confirm_page_values(idp, request, active, csrf) });
    }
  };
