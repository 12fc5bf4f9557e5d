/**
 * GET|POST /account/email/confirm?token=…: the link mailed to a new address
 * (oidc/accounts/email_change.ts). The GET shows the change and a button, and changes nothing
 * (mail scanners open links); the POST consumes the link atomically and sets the address,
 * verified. A used, expired or forged link gets a page that says so and changes nothing.
 *
 * No session is needed: the link itself proves the new address, and the account asked for it.
 * CSRF: the page form token of "email-change" (oidc/browser/page_forms.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { EMAIL_CHANGE_PATH, confirm_email_change, open_email_change } from "../../../oidc/accounts/email_change.ts";
import { account_url } from "../../../oidc/browser/account_guard.ts";
import { invalid_link } from "../../../oidc/accounts/link_tokens.ts";
import { check_page_form, page_form_token } from "../../../oidc/browser/page_forms.ts";
import { PageError } from "../../../oidc/errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { layout_values } from "../../pages/layout.ts";

export const EmailConfirmRequest = Fw.Request("EmailConfirmRequest", z.object({ token: z.string().max(256).optional(), csrf: z.string().max(256).optional() }), {
  on_invalid: invalid_form,
});

export const EmailConfirm = (idp: Provider) =>
  class EmailConfirm extends Fw.Renderable(Fw.Endpoint(EmailConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET|POST ${EMAIL_CHANGE_PATH}`;

    async call() {
      const input = this.email_confirm_request;
      const token = input.token ?? "";
      if (this.request.method === "GET") {
        const opened = await open_email_change(idp, token);
        if (opened === null) throw invalid_link("email_change");
        const { csrf, cookie } = page_form_token(idp, this.cookies, "email_change");
        this.set_cookie(cookie.name, cookie.value, cookie.options);
        const instead = opened.user.email === null ? "" : ` instead of ${opened.user.email}`;
        return this.view("message", {
          ...layout_values(idp, "Confirm your new e-mail address"),
          heading: "Confirm your new e-mail address",
          message: `Use ${opened.token.email} for the account ${opened.user.username}${instead}? Nothing changes until you press the button.`,
          form: { action: `${idp.config.issuer}${EMAIL_CHANGE_PATH}`, csrf, hidden: [{ name: "token", value: token }], button: "Confirm new address", primary: true },
        });
      }
      check_page_form(idp, this.cookies, input.csrf, "email_change", "The form was not sent from this page. Open the link in the mail again.");
      const outcome = await confirm_email_change(idp, token, client_ip(this.context, idp.config));
      if (outcome.kind === "invalid") throw invalid_link("email_change");
      if (outcome.kind === "taken") {
        throw new PageError(
          "This address is already used",
          "Another account uses this e-mail address now, so it was not added to yours. Your e-mail address was not changed.",
          "invalid_request",
        );
      }
      return this.view("message", {
        ...layout_values(idp, "E-mail address changed"),
        heading: "Your e-mail address is changed",
        notice: `The account ${outcome.user.username} now uses ${outcome.user.email}.`,
        message: null,
        link: { href: account_url(idp), text: "Go to your account" },
      });
    }
  };
