/**
 * GET|POST /device: the verification page of the device authorization grant (RFC 8628 §3.3).
 * The user enters the code their device shows (a form field named user_code; case, dashes and
 * spaces ignored, §6.1); verification_uri_complete (§3.3.1) only fills it in, the user still
 * submits it and then confirms on the consent page (§5.4). A code that matches starts an
 * interaction for the device's client: the sign-in (and two-factor) pages when nobody is signed
 * in here, then the device's consent page (interaction/consent.ts). Wrong codes are limited per
 * address (device.ts `find_by_user_code`, §5.1).
 *
 * CSRF: the form token is HMAC-SHA256(the browser's `idp_interaction` binding value,
 * "csrf:device"), as the account page's sign-in does (account/login.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { next_step } from "../../../oidc/authorize/decision.ts";
import { cookie_options, interaction_cookie_name, read_cookie } from "../../../oidc/browser/cookies.ts";
import { random_token } from "../../../oidc/crypto/secrets.ts";
import { check_form_token, form_token } from "../../../oidc/browser/form_tokens.ts";
import { DEVICE_PATH, device_request, find_by_user_code, normalize_user_code } from "../../../oidc/authorize/device.ts";
import { begin_interaction, count_interaction_start, interaction_url, type Authentication } from "../../../oidc/authorize/interactions.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { current_session_row } from "../../../oidc/signin/sessions.ts";
import { invalid_form } from "../../errors.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { layout_values } from "../../pages/layout.ts";

export const DeviceVerificationRequest = Fw.Request("DeviceVerificationRequest", z.object({ user_code: z.string().max(64).optional(), csrf: z.string().max(256).optional() }), {
  on_invalid: invalid_form,
});

const WRONG_CODE = "That code is not valid, or it has expired. Check the code your device shows and try again.";

export const DeviceVerification = (idp: Provider) =>
  class DeviceVerification extends Fw.Renderable(Fw.Endpoint(DeviceVerificationRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET|POST ${DEVICE_PATH}`;

    async call() {
      const input = this.device_verification_request;
      if (this.request.method === "GET") return this.page(input.user_code ?? "", null);
      const binding = read_cookie(this.cookies, interaction_cookie_name(idp));
      check_form_token(input.csrf, binding === null ? null : form_token(binding, "device"), "The form was not sent from this page. Open the page again and enter the code.");
      const typed = (input.user_code ?? "").trim();
      if (typed === "") return this.page("", "Enter the code your device shows.", 400);
      // A matching code starts an interaction: counted as /authorize is (rate_limits.authorize_per_ip).
      const ip = client_ip(this.context, idp.config);
      await count_interaction_start(idp, ip);
      const found = await find_by_user_code(idp, typed, ip);
      const client = found === null ? null : await idp.store.get_client(found.client_id);
      if (found === null || client === null) return this.page(typed, WRONG_CODE, 400);

      // As /authorize does: a signed-in user goes straight to the confirmation, anybody else signs in first.
      const request = device_request(found, normalize_user_code(typed)!);
      const session = await current_session_row(idp, this.cookies);
      const authentication: Authentication | null =
        session === null ? null : { user_id: session.user_id, session_id_hash: session.id_hash, auth_time: session.auth_time, amr: session.amr };
      const step = await next_step(idp, client, request, authentication, { login: false, consent: false });
      const page = step.kind === "consent" ? "consent" : "login";
      const { id, cookie } = await begin_interaction(idp, request, page === "login" ? null : authentication, this.cookies);
      this.set_cookie(cookie.name, cookie.value, cookie.options);
      return this.redirect_to(interaction_url(idp, id, page), 303);
    }

    page(user_code: string, error: string | null, status = 200) {
      // The form token is bound to this browser: keep its binding value, or give it one.
      const binding = read_cookie(this.cookies, interaction_cookie_name(idp)) ?? random_token(32);
      this.set_cookie(interaction_cookie_name(idp), binding, cookie_options(idp, idp.config.tokens.interaction_ttl));
      set_page_headers(this.response.headers, null);
      return this.view(
        "device",
        {
          ...layout_values(idp, "Connect a device"),
          action: `${idp.config.issuer}${DEVICE_PATH}`,
          csrf: form_token(binding, "device"),
          user_code,
          error,
        },
        status,
      );
    }
  };
