/**
 * GET|POST /password/reset?token=…: the page a password reset link opens
 * (oidc/accounts/password_reset.ts). The GET only looks the link up and shows the form; the POST
 * checks the new password against the policy and, for an account with two-step verification,
 * its second factor (a code, a recovery code, or a passkey: the form's `response`, filled in by
 * static/passkeys.js from the options of reset_password_passkey.ts), and only then uses the link
 * (atomically, once). A used, expired, voided or forged link, or one mailed to an address the
 * account no longer has, gets a page that says so and changes nothing. A reset that handed the
 * account over (oidc/accounts/reclaim.ts) says what it removed. A completed reset ends every
 * session; their clients get back-channel logout (logout/bulk.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { find_link_token, invalid_link, LINK_PATHS, redeem_link_token, type LinkTarget } from "../../../oidc/accounts/link_tokens.ts";
import { check_page_form, page_form_token } from "../../../oidc/browser/page_forms.ts";
import { check_password_policy, password_policy_hint } from "../../../oidc/accounts/password_policy.ts";
import {
  RESET_PASSKEY_OPTIONS_PATH,
  check_reset_second_factor,
  complete_password_reset,
  count_address,
  count_reset_attempt,
  reset_link_fits,
  reset_needs_second_factor,
} from "../../../oidc/accounts/password_reset.ts";
import { with_backchannel_logout } from "../../../oidc/logout/bulk.ts";
import { removed_sign_in_methods } from "../../../oidc/accounts/reclaim.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { layout_values, passkey_scripts } from "../../pages/layout.ts";
import { interaction_param, sign_in_url } from "../../pages/return_to.ts";

export const ResetPasswordRequest = Fw.Request(
  "ResetPasswordRequest",
  z.object({
    token: z.string().max(128).optional(),
    interaction: z.string().max(128).optional(),
    csrf: z.string().max(256).optional(),
    new_password: z.string().max(4096).optional(),
    confirm_password: z.string().max(4096).optional(),
    code: z.string().max(64).optional(),
    recovery_code: z.string().max(64).optional(),
    response: z
      .string()
      .max(64 * 1024)
      .optional(),
  }),
  { on_invalid: invalid_form },
);

export const ResetPassword = (idp: Provider) =>
  class ResetPassword extends Fw.Renderable(Fw.Endpoint(ResetPasswordRequest, [Fw.Response.Html])) {
    static route = `GET|POST ${LINK_PATHS.password_reset}`;

    async call() {
      const input = this.reset_password_request;
      const interaction = interaction_param(input.interaction);
      if (this.request.method === "GET") {
        const target = await find_link_token(idp, input.token, "password_reset");
        if (target === null || !reset_link_fits(target)) throw invalid_link("password_reset");
        return this.form(target, input.token!, interaction, null, null);
      }

      const ip = client_ip(this.context, idp.config);
      await count_address(idp, "reset", ip);
      check_page_form(idp, this.cookies, input.csrf, "password_reset", "The form was not sent from this page. Open the link from the e-mail again.");
      const target = await find_link_token(idp, input.token, "password_reset");
      if (target === null || !reset_link_fits(target)) throw invalid_link("password_reset");
      const user = target.user;
      await count_reset_attempt(idp, user);
      const password = input.new_password ?? "";
      const problem =
        check_password_policy(password, { username: user.username, email: user.email }, idp.config.passwords) ??
        (password !== (input.confirm_password ?? "") ? "The two passwords are not the same. Type them again." : null);
      if (problem !== null) return this.form(target, input.token!, interaction, problem, "password");
      // The code is checked after the password rules, so a refused password does not use up a code.
      const factor = await check_reset_second_factor(idp, target, input, ip);
      if (factor !== null) return this.form(target, input.token!, interaction, factor, "code");

      const redeemed = await redeem_link_token(idp, input.token, "password_reset");
      // The address may have changed since the form was shown: checked again on the used link.
      if (redeemed === null || redeemed.user.id !== user.id || !reset_link_fits(redeemed)) throw invalid_link("password_reset");
      const outcome = await with_backchannel_logout(idp, user.id, () => complete_password_reset(idp, redeemed.user, redeemed.row.email, password, ip));
      return this.view("message", {
        ...layout_values(idp, "Password changed"),
        heading: "Your password was changed",
        notice: removed_sign_in_methods(outcome.reclaimed)
          ? "You were signed out on every device and application. This reset confirmed your e-mail address for the first time, so the passkeys, authenticator app and linked accounts added to the account before it were removed: add your own again from your account page."
          : "You were signed out on every device and application.",
        message: "Sign in with your new password.",
        link: { href: await sign_in_url(idp, this.cookies, interaction), text: "Sign in" },
      });
    }

    async form(target: LinkTarget, token: string, interaction: string | null, error: string | null, error_field: "password" | "code" | null) {
      const { csrf, cookie } = page_form_token(idp, this.cookies, "password_reset");
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      const rules = idp.config.passwords;
      const factors = await reset_needs_second_factor(idp, target.user);
      const passkey = factors !== null && factors.passkeys > 0;
      // Our scripts only where a passkey is asked for (static/passkeys.js).
      if (passkey) set_page_headers(this.response.headers, null, true);
      return this.view(
        "reset_password",
        {
          ...layout_values(idp, "Choose a new password"),
          ...(passkey ? { scripts: passkey_scripts(idp) } : {}),
          action: `${idp.config.issuer}${LINK_PATHS.password_reset}`,
          csrf,
          token,
          interaction,
          username: target.user.username,
          min_length: rules.min_length,
          max_length: rules.max_length,
          hint: password_policy_hint(rules),
          second_factor: factors === null ? null : { totp: factors.totp, passkey: passkey ? `${idp.config.issuer}${RESET_PASSKEY_OPTIONS_PATH}` : null },
          error,
          error_field,
        },
        error === null ? 200 : 400,
      );
    }
  };
