/**
 * POST /admin/sign-out: the console header's "Sign out" (views/layout.eta). The form carries the
 * console's form token (oidc/admin/console.ts; 403 page without it, nothing ended); the browser's
 * session then ends the way /logout/confirm ends it when the user says "Log out"
 * (logout/end_session.ts: its tokens revoked, back- and front-channel logout of its clients, the
 * `logout` audit event with initiator `user`), its cookie is removed, and the answer is the
 * "signed out" page (with the clients' front-channel iframes, if any). Not limited to members of
 * the admin group: whoever holds the session may end it. Without a session there is nothing to
 * end: the same page.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { read_cookie, session_cookie_name } from "../../../oidc/browser/cookies.ts";
import { check_form_token, form_token } from "../../../oidc/browser/form_tokens.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { end_session } from "../../../oidc/logout/end_session.ts";
import type { FrontChannelFrame } from "../../../oidc/logout/frontchannel.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { current_session } from "../../../oidc/signin/sessions.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { clear_session_cookie, signed_out_answer, signed_out_csp } from "../../pages/signed_out.ts";

export const AdminConsoleSignOutRequest = Fw.Request("AdminConsoleSignOutRequest", z.object({ csrf: z.string().max(256).optional() }));

export const AdminConsoleSignOut = (idp: Provider) =>
  class AdminConsoleSignOut extends Fw.Renderable(Fw.Endpoint(AdminConsoleSignOutRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/sign-out`;

    async call() {
      this.response.headers.set("cache-control", "no-store");
      const active = await current_session(idp, this.cookies);
      let frames: FrontChannelFrame[] = [];
      if (active !== null) {
        const cookie = read_cookie(this.cookies, session_cookie_name(idp));
        check_form_token(
          this.admin_console_sign_out_request.csrf,
          cookie === null ? null : form_token(cookie, "admin_console"),
          "The sign-out form was not sent from the admin console, or you signed in again since it was opened. You are still signed in: open the console again and sign out there.",
        );
        frames = (await end_session(idp, active, { client_id: null, ip: client_ip(this.context, idp.config) || null, initiator: "user" })).frontchannel;
      }
      const cookie = clear_session_cookie(idp, this.cookies);
      if (cookie !== null) this.set_cookie(cookie.name, cookie.value, cookie.options);
      const answer = signed_out_answer(idp, { client: null, hint: null, post_logout_redirect_uri: null, state: null }, frames);
      const csp = signed_out_csp(frames);
      if (csp !== null) this.response.headers.set("content-security-policy", csp);
      if (answer.kind === "redirect") return this.redirect_to(answer.url, 303);
      return this.view("logged_out", answer.values);
    }
  };
