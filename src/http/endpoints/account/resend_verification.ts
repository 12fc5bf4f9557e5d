/**
 * POST /email/verify/resend: mails the e-mail verification link again (oidc/accounts/verification.ts),
 * limited per account. Two forms post here:
 * - the sign-in's "confirm your e-mail address first" page, with the ticket it was given after
 *   the right password (bound to this browser);
 * - the account page of a signed-in user whose address is not verified yet.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { check_page_form } from "../../../oidc/browser/page_forms.ts";
import { account_session, account_url, check_account_csrf } from "../../../oidc/browser/account_guard.ts";
import { needs_verification, resend_ticket_user, send_verification } from "../../../oidc/accounts/verification.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { layout_values } from "../../pages/layout.ts";
import { RESEND_VERIFICATION_PATH } from "../../pages/account_status.ts";

export const ResendVerificationRequest = Fw.Request("ResendVerificationRequest", z.object({ ticket: z.string().max(128).optional(), csrf: z.string().max(256).optional() }), {
  on_invalid: invalid_form,
});

export const ResendVerification = (idp: Provider) =>
  class ResendVerification extends Fw.Renderable(Fw.Endpoint(ResendVerificationRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${RESEND_VERIFICATION_PATH}`;

    async call() {
      const input = this.resend_verification_request;
      if (input.ticket === undefined) {
        const session = await account_session(idp, this.cookies);
        if (session === null) return this.redirect_to(account_url(idp, "login"), 303);
        check_account_csrf(session, input.csrf);
        if (needs_verification(session.user)) await send_verification(idp, session.user);
        return this.redirect_to(`${account_url(idp)}?done=verification_sent`, 303);
      }
      check_page_form(idp, this.cookies, input.csrf, "resend_verification", "The form was not sent from this page. Sign in again to ask for a new link.");
      const user = await resend_ticket_user(idp, input.ticket, this.cookies);
      const pending = needs_verification(user) || user.status === "unverified";
      if (pending) await send_verification(idp, user);
      return this.view("message", {
        ...layout_values(idp, "Check your e-mail"),
        heading: pending ? "Check your e-mail" : "Your address is already confirmed",
        notice: pending ? `We sent a new confirmation link to ${user.email}.` : null,
        message: pending ? "Open it to confirm your address, then sign in. Links sent before this one no longer work." : "You can sign in now.",
        link: { href: account_url(idp, "login"), text: "Sign in" },
      });
    }
  };
