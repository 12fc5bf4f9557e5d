/**
 * GET|POST /invitation?token=…: the page of an invitation link (oidc/accounts/invitations.ts).
 * The GET shows the form and uses nothing up (mail scanners open links); the POST consumes the
 * link atomically, activates the account and signs the person in, then shows their account.
 * A used, expired or forged link gets a page that says so and changes nothing.
 *
 * CSRF: the page form token of "invitation" (oidc/browser/page_forms.ts). The link token travels
 * in the query of the link and in the form's body, never in the path (link_tokens.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { password_hint } from "../../../oidc/accounts/chosen_password.ts";
import { INVITATION_PATH, accept_invitation, open_invitation } from "../../../oidc/accounts/invitations.ts";
import { begin_for_account, second_factor_required } from "../../../oidc/signin/second_factor.ts";
import { sign_in } from "../../../oidc/signin/complete.ts";
import { AMR_PASSWORD } from "../../../oidc/signin/methods.ts";
import { account_url } from "../../../oidc/browser/account_guard.ts";
import { invalid_link } from "../../../oidc/accounts/link_tokens.ts";
import { check_page_form, page_form_token } from "../../../oidc/browser/page_forms.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { UserRow } from "../../../store/types.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { layout_values } from "../../pages/layout.ts";

export const InvitationRequest = Fw.Request(
  "InvitationRequest",
  z.object({
    token: z.string().max(256).optional(),
    csrf: z.string().max(256).optional(),
    username: z.string().max(256).optional(),
    password: z.string().max(4096).optional(),
    confirm_password: z.string().max(4096).optional(),
  }),
  { on_invalid: invalid_form },
);

export const Invitation = (idp: Provider) =>
  class Invitation extends Fw.Renderable(Fw.Endpoint(InvitationRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET|POST ${INVITATION_PATH}`;

    async call() {
      const input = this.invitation_request;
      const token = input.token ?? "";
      const opened = await open_invitation(idp, token);
      if (opened === null) throw invalid_link("invitation");
      if (this.request.method === "GET") return this.page(opened.user, token, opened.user.username, null);

      check_page_form(idp, this.cookies, input.csrf, "invitation", "The form was not sent from this page. Open the invitation link again.");
      const ip = client_ip(this.context, idp.config);
      const username = (input.username ?? "").trim();
      const outcome = await accept_invitation(idp, { token, username, password: input.password ?? "", confirm_password: input.confirm_password ?? "" }, ip);
      if (outcome.kind === "invalid") throw invalid_link("invitation");
      if (outcome.kind === "refused") return this.page(opened.user, token, username, { field: outcome.field, message: outcome.message }, 400);
      // The same second-factor rule as the account's own sign-in (IDP_REQUIRE_2FA: set one up first).
      if (await second_factor_required(idp, null, outcome.user)) {
        const { url, cookie } = await begin_for_account(idp, outcome.user, this.cookies, true);
        this.set_cookie(cookie.name, cookie.value, cookie.options);
        return this.redirect_to(url, 303);
      }
      const { cookie } = await sign_in(idp, this.cookies, outcome.user, AMR_PASSWORD, ip, null, this.headers.get("user-agent"));
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      return this.redirect_to(`${account_url(idp)}?done=welcome`, 303);
    }

    page(user: UserRow, token: string, username: string, error: { field: string; message: string } | null, status = 200) {
      const { csrf, cookie } = page_form_token(idp, this.cookies, "invitation");
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      return this.view(
        "invitation",
        {
          ...layout_values(idp, "Accept your invitation"),
          action: `${idp.config.issuer}${INVITATION_PATH}`,
          csrf,
          token,
          name: user.name,
          email: user.email,
          username,
          error,
          password_hint: password_hint(idp),
        },
        status,
      );
    }
  };
