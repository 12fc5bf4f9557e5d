/**
 * POST /logout/confirm: the answer to the confirmation page of /logout (OIDC RP-Initiated
 * Logout §2: "If the End-User says 'yes', then the OP MUST log out the End-User").
 *
 * The CSRF token is checked first (403 page when missing or foreign), then the request values
 * again, exactly as /logout checked them. "Log out" ends the session and goes on like /logout;
 * "Stay signed in" changes nothing and says so. When the session has already ended (another
 * tab), there is nothing to protect or end: the user gets the end of the logout.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { PageError } from "../../../oidc/errors.ts";
import { describe_issues, to_http } from "../../errors.ts";
import { clear_session_cookie, signed_out_answer, signed_out_csp, stayed_values } from "../../pages/signed_out.ts";
import { CONFIRM_PATH, check_logout_csrf, forged_form } from "../../../oidc/logout/confirmation.ts";
import { end_session } from "../../../oidc/logout/end_session.ts";
import type { FrontChannelFrame } from "../../../oidc/logout/frontchannel.ts";
import { invalid_logout, validate_logout } from "../../../oidc/logout/request.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { current_session } from "../../../oidc/signin/sessions.ts";

const field = z.string().max(2048).optional();

export const LogoutConfirmRequest = Fw.Request(
  "LogoutConfirmRequest",
  z.object({ client_id: field, post_logout_redirect_uri: field, state: field, csrf: z.string().max(256).optional(), decision: z.enum(["logout", "stay"]).optional() }),
  { on_invalid: (issues) => to_http(invalid_logout(`The sign-out form could not be read (${describe_issues(issues)}). You have not been signed out.`)) },
);

export const LogoutConfirm = (idp: Provider) =>
  class LogoutConfirm extends Fw.Renderable(Fw.Endpoint(LogoutConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${CONFIRM_PATH}`;

    async call() {
      const input = this.logout_confirm_request;
      if (input.csrf === undefined || input.csrf === "") throw forged_form();
      const fields = { client_id: input.client_id ?? "", post_logout_redirect_uri: input.post_logout_redirect_uri ?? "", state: input.state ?? "" };
      const active = await current_session(idp, this.cookies);
      if (active !== null) check_logout_csrf(idp, this.cookies, fields, input.csrf);
      const request = await validate_logout(idp, fields);
      let frames: FrontChannelFrame[] = [];
      if (active !== null) {
        if (input.decision === undefined) throw new PageError("No choice was made", "Choose “Log out” or “Stay signed in” to continue.");
        if (input.decision === "stay") return this.view("logged_out", stayed_values(idp, request));
        frames = (await end_session(idp, active, { client_id: request.client?.client_id ?? null, ip: client_ip(this.context, idp.config) || null, initiator: "user" }))
          .frontchannel;
      }
      const cookie = clear_session_cookie(idp, this.cookies);
      if (cookie !== null) this.set_cookie(cookie.name, cookie.value, cookie.options);
      const answer = signed_out_answer(idp, request, frames);
      // Front-Channel Logout §3: the page may frame exactly the clients' logout URIs.
      const csp = signed_out_csp(frames);
      if (csp !== null) this.response.headers.set("content-security-policy", csp);
      if (answer.kind === "redirect") return this.redirect_to(answer.url, 303);
      return this.view("logged_out", answer.values);
    }
  };
