/**
 * GET|POST /email/verify?token=…: the page an e-mail verification link opens
 * (oidc/accounts/verification.ts). The GET shows the address and a confirm button and uses
 * nothing, so mail scanners that open links confirm nothing; the POST uses the link once.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { find_link_token, invalid_link, LINK_PATHS } from "../../../oidc/accounts/link_tokens.ts";
import { check_page_form, page_form_token } from "../../../oidc/browser/page_forms.ts";
import { account_url } from "../../../oidc/browser/account_guard.ts";
import { confirm_email } from "../../../oidc/accounts/verification.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { current_session_row } from "../../../oidc/signin/sessions.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { layout_values } from "../../pages/layout.ts";
import { interaction_param, interaction_params, sign_in_url } from "../../pages/return_to.ts";

export const VerifyEmailRequest = Fw.Request(
  "VerifyEmailRequest",
  z.object({ token: z.string().max(128).optional(), interaction: z.string().max(128).optional(), csrf: z.string().max(256).optional() }),
  { on_invalid: invalid_form },
);

export const VerifyEmail = (idp: Provider) =>
  class VerifyEmail extends Fw.Renderable(Fw.Endpoint(VerifyEmailRequest, [Fw.Response.Html])) {
    static route = `GET|POST ${LINK_PATHS.email_verification}`;

    async call() {
      const input = this.verify_email_request;
      const interaction = interaction_param(input.interaction);
      if (this.request.method === "GET") {
        const target = await find_link_token(idp, input.token, "email_verification");
        if (target === null) throw invalid_link("email_verification");
        const { csrf, cookie } = page_form_token(idp, this.cookies, "verify_email");
        this.set_cookie(cookie.name, cookie.value, cookie.options);
        return this.view("message", {
          ...layout_values(idp, "Confirm your e-mail address"),
          heading: "Confirm your e-mail address",
          message: `Confirm that ${target.row.email ?? "this address"} is the e-mail address of the account ${target.user.username}.`,
          form: {
            action: `${idp.config.issuer}${LINK_PATHS.email_verification}`,
            csrf,
            hidden: [{ name: "token", value: input.token }, ...Object.entries(interaction_params(interaction)).map(([name, value]) => ({ name, value }))],
            button: "Confirm my address",
            primary: true,
          },
        });
      }

      check_page_form(idp, this.cookies, input.csrf, "verify_email", "The form was not sent from this page. Open the link from the e-mail again.");
      const user = await confirm_email(idp, input.token, client_ip(this.context, idp.config));
      // Signed in already (the account page's link): back to the account; else to a sign-in.
      const session = await current_session_row(idp, this.cookies);
      const next =
        session !== null && session.user_id === user.id
          ? { href: account_url(idp), text: "Go to your account" }
          : { href: await sign_in_url(idp, this.cookies, interaction), text: "Sign in" };
      return this.view("message", {
        ...layout_values(idp, "Address confirmed"),
        heading: "Your e-mail address is confirmed",
        notice: `${user.email} is confirmed.`,
        message: null,
        link: next,
      });
    }
  };
