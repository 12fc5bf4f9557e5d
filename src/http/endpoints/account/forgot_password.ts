/**
 * GET|POST /password/forgot: asks for a username or an e-mail address and mails a link to choose
 * a new password (oidc/accounts/password_reset.ts). Offered only when mail can be delivered.
 *
 * The answer to the POST is the same page, status and timing whether or not an account matches
 * (OWASP Forgot Password Cheat Sheet, "return a consistent message for both existent and
 * non-existent accounts", "ensure that responses return in a consistent amount of time"): the
 * lookup and the mail happen after the answer; only the address's request count is awaited.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { check_page_form, page_form_token } from "../../../oidc/browser/page_forms.ts";
import { FORGOT_PASSWORD_PATH, count_address, request_password_reset } from "../../../oidc/accounts/password_reset.ts";
import { PageError } from "../../../oidc/errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { layout_values } from "../../pages/layout.ts";
import { interaction_param, interaction_params, sign_in_url } from "../../pages/return_to.ts";

export const ForgotPasswordRequest = Fw.Request(
  "ForgotPasswordRequest",
  z.object({
    identifier: z.string().max(320).optional(),
    interaction: z.string().max(128).optional(),
    csrf: z.string().max(256).optional(),
  }),
  { on_invalid: invalid_form },
);

export const ForgotPassword = (idp: Provider) =>
  class ForgotPassword extends Fw.Renderable(Fw.Endpoint(ForgotPasswordRequest, [Fw.Response.Html])) {
    static route = `GET|POST ${FORGOT_PASSWORD_PATH}`;

    async call() {
      if (!idp.mail.enabled)
        throw new PageError(
          "Password reset is not available",
          "This service cannot send e-mail, so passwords cannot be reset here. Ask the administrator.",
          "invalid_request",
          true,
        );
      const input = this.forgot_password_request;
      const interaction = interaction_param(input.interaction);
      if (this.request.method === "GET") return this.page(interaction, "", null, false);

      check_page_form(idp, this.cookies, input.csrf, "forgot_password", "The form was not sent from this page. Open the sign-in page and try again.");
      const identifier = (input.identifier ?? "").trim();
      if (identifier === "") return this.page(interaction, "", "Username or e-mail address: enter one of them.", false, 400);
      const ip = client_ip(this.context, idp.config);
      await count_address(idp, "forgot", ip);
      request_password_reset(idp, identifier, ip, interaction_params(interaction));
      return this.page(interaction, "", null, true);
    }

    async page(interaction: string | null, identifier: string, error: string | null, sent: boolean, status = 200) {
      const { csrf, cookie } = page_form_token(idp, this.cookies, "forgot_password");
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      return this.view(
        "forgot_password",
        {
          ...layout_values(idp, "Forgot password"),
          action: `${idp.config.issuer}${FORGOT_PASSWORD_PATH}`,
          csrf,
          interaction,
          identifier,
          error,
          sent,
          expires_minutes: Math.round(idp.config.password_reset.ttl / 60),
          back_url: await sign_in_url(idp, this.cookies, interaction),
        },
        status,
      );
    }
  };
