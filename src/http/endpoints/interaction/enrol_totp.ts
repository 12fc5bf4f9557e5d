/**
 * GET|POST /interaction/:id/enrol-totp: at a sign-in that requires a second factor
 * (IDP_REQUIRE_2FA, a client's require_2fa) from a user who has none, after the password, the
 * user adds an authenticator app (TOTP, RFC 6238) instead of a passkey. As on the account page
 * (account/totp.ts): a QR code and the key; one valid code turns it on and proves it, so the sign-in
 * completes with amr ["pwd", "otp"] after the recovery codes were shown once.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { load_pending, record_enrolment, type Pending } from "../../../oidc/signin/second_factor.ts";
import { AMR_TWO_FACTORS } from "../../../oidc/signin/methods.ts";
import { record_event } from "../../../oidc/audit.ts";
import { check_form_token } from "../../../oidc/browser/form_tokens.ts";
import { expired_interaction } from "../../../oidc/authorize/interactions.ts";
import { login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../../../oidc/limits/login.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { grouped_secret, issue_recovery_codes, new_totp_secret, totp_key_uri, verify_totp } from "../../../oidc/signin/totp.ts";
import type { UserRow } from "../../../store/types.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";
import { layout_values } from "../../pages/layout.ts";
import { qr_data_url } from "../../pages/qr.ts";

export const EnrolTotpRequest = Fw.Request("EnrolTotpRequest", z.object({ id: z.string().max(128), csrf: z.string().max(256).optional(), code: z.string().max(64).optional() }), {
  on_invalid: invalid_form,
});

export const EnrolTotp = (idp: Provider) =>
  class EnrolTotp extends Fw.Renderable(Fw.Endpoint(EnrolTotpRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = "GET|POST /interaction/:id/enrol-totp";

    async call() {
      const input = this.enrol_totp_request;
      const pending = await load_pending(idp, input.id, this.cookies);
      const user = pending.user;
      if (user === null || !pending.enrol) throw expired_interaction();
      if (this.request.method === "GET") return this.setup(pending, user, null);

      check_form_token(input.csrf, pending.csrf, "The form was not sent from this sign-in page. Go back and start again.");
      if (user.totp_secret === null) return this.redirect_to(this.url(pending), 303);
      const ip = client_ip(this.context, idp.config);
      // Reserve, verify, release (oidc/limits/login.ts), as the account page does.
      const attempt = await reserve_login_attempt(idp, ip, user.username);
      const result = await verify_totp(idp, user.id, user.totp_secret, input.code ?? "");
      if (result !== "ok") {
        await login_attempt_failed(idp, attempt);
        return this.setup(
          pending,
          user,
          result === "reused"
            ? "That code was already used. Wait for the next code in your app."
            : "That code is not right. Scan the QR code again, or check that the time on your phone is set automatically.",
        );
      }
      await release_login_attempt(idp, attempt);
      await idp.store.update_user(user.id, { totp_enabled_at: idp.now() });
      const codes = await issue_recovery_codes(idp, user.id);
      await record_event(idp, {
        type: "two_factor_enrolled",
        outcome: "success",
        user_id: user.id,
        client_id: pending.interaction?.request.client_id ?? null,
        ip,
        details: { method: "totp", at_sign_in: true },
      });
      await record_enrolment(idp, pending.id, AMR_TWO_FACTORS);
      set_page_headers(this.response.headers, pending.interaction?.request.redirect_uri ?? null);
      // Shown once (stored hashed); the button completes the sign-in (two_factor.ts `enrolled`).
      return this.view("recovery_codes", {
        ...layout_values(idp, "Two-step verification is on"),
        heading: "Two-step verification is on",
        codes,
        next: null,
        continue_form: { action: `${idp.config.issuer}/interaction/${encodeURIComponent(pending.id)}/two-factor`, csrf: pending.csrf },
      });
    }

    url(pending: Pending): string {
      return `${idp.config.issuer}/interaction/${encodeURIComponent(pending.id)}/enrol-totp`;
    }

    /** The set-up page; creates the (not yet enabled) secret on first view. */
    async setup(pending: Pending, user: UserRow, error: string | null) {
      let secret = user.totp_secret;
      if (secret === null) {
        secret = new_totp_secret();
        await idp.store.update_user(user.id, { totp_secret: secret });
      }
      const uri = totp_key_uri(new URL(idp.config.issuer).host, user.username, secret);
      set_page_headers(this.response.headers, pending.interaction?.request.redirect_uri ?? null);
      return this.view(
        "account_totp",
        {
          ...layout_values(idp, "Set up two-step verification"),
          qr: qr_data_url(uri),
          uri,
          secret: grouped_secret(secret),
          csrf: pending.csrf,
          action: this.url(pending),
          back: `${idp.config.issuer}/interaction/${encodeURIComponent(pending.id)}/two-factor`,
          error,
        },
        error === null ? 200 : 400,
      );
    }
  };
