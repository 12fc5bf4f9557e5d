/**
 * POST /password/reset/passkey/options: the WebAuthn options (a fresh single-use challenge, the
 * account's passkeys) for static/passkeys.js on the page of a password reset link, as JSON, when
 * the reset must prove a passkey (oidc/accounts/password_reset.ts `reset_needs_second_factor`).
 * The challenge is bound to the link (`reset_passkey_binding`); the page's form token is required
 * (a challenge is stored), and each call counts against the address like a post of the form.
 * Mounted only while passkeys are on.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { find_link_token, invalid_link } from "../../../oidc/accounts/link_tokens.ts";
import { RESET_PASSKEY_OPTIONS_PATH, count_address, reset_link_fits, reset_needs_second_factor, reset_passkey_binding } from "../../../oidc/accounts/password_reset.ts";
import { check_page_form } from "../../../oidc/browser/page_forms.ts";
import { authentication_options } from "../../../oidc/signin/passkeys/ceremony.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const ResetPasskeyOptionsRequest = Fw.Request("ResetPasskeyOptionsRequest", z.object({ token: z.string().max(128).optional(), csrf: z.string().max(256).optional() }), {
  on_invalid: invalid_form,
});

export const ResetPasskeyOptions = (idp: Provider) =>
  class ResetPasskeyOptions extends Fw.Endpoint(ResetPasskeyOptionsRequest, Fw.Response.Json) {
    static route = `POST ${RESET_PASSKEY_OPTIONS_PATH}`;

    async call() {
      const input = this.reset_passkey_options_request;
      await count_address(idp, "reset", client_ip(this.context, idp.config));
      check_page_form(idp, this.cookies, input.csrf, "password_reset", "The form was not sent from this page. Open the link from the e-mail again.");
      const target = await find_link_token(idp, input.token, "password_reset");
      if (target === null || !reset_link_fits(target)) throw invalid_link("password_reset");
      const needed = await reset_needs_second_factor(idp, target.user);
      if (needed === null || needed.passkeys === 0) throw invalid_link("password_reset");
      return this.json(await authentication_options(idp, "password_reset", reset_passkey_binding(target), target.user));
    }
  };
