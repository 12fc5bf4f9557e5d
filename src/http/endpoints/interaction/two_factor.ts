/**
 * GET|POST /interaction/:id/two-factor: the second sign-in step. After a correct password, a
 * user with an authenticator app enters its current code (RFC 6238), or one of their recovery
 * codes. Then the sign-in goes on as after a password alone: back to the application (consent
 * if needed), or to the account page for the account's own sign-in.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { check_second_factor, load_pending, take_enrolment, type Pending } from "../../../oidc/signin/second_factor.ts";
import { AMR_TWO_FACTORS } from "../../../oidc/signin/methods.ts";
import { account_url } from "../../../oidc/browser/account_guard.ts";
import { display_name } from "../../../oidc/clients/metadata.ts";
import { check_form_token } from "../../../oidc/browser/form_tokens.ts";
import { invalid_form } from "../../errors.ts";
import { expired_interaction, interaction_url } from "../../../oidc/authorize/interactions.ts";
import { layout_values, passkey_scripts } from "../../pages/layout.ts";
import { requires_passkey } from "../../../oidc/signin/methods.ts";
import { finish_second_factor } from "../../authorization_response.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { set_page_headers } from "../../middleware/security_headers.ts";
import { passkeys_usable } from "../../../oidc/signin/passkeys/rp_id.ts";

export const TwoFactorRequest = Fw.Request(
  "TwoFactorRequest",
  z.object({
    id: z.string().max(128),
    code: z.string().max(64).optional(),
    recovery_code: z.string().max(64).optional(),
    /** Sent by the recovery codes page after an authenticator app was added here (enrol_totp.ts). */
    enrolled: z.string().max(8).optional(),
    csrf: z.string().max(256).optional(),
  }),
  { on_invalid: invalid_form },
);

export const TwoFactor = (idp: Provider) =>
  class TwoFactor extends Fw.Renderable(Fw.Endpoint(TwoFactorRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = "GET|POST /interaction/:id/two-factor";

    async call() {
      const input = this.two_factor_request;
      const pending = await load_pending(idp, input.id, this.cookies);
      const status = this.request.method === "POST" ? 303 : 302;
      const user = pending.user;
      if (user === null) {
        // No password step waiting here: start at the password.
        return this.redirect_to(pending.interaction === null ? account_url(idp, "login") : interaction_url(idp, pending.id, "login"), status);
      }
      if (this.request.method === "GET") return this.page(pending, null, false);

      check_form_token(input.csrf, pending.csrf, "The form was not sent from this sign-in page. Go back and start again.");
      if (input.enrolled !== undefined) {
        // The app was added and its code checked at enrol_totp.ts; the recovery codes were shown.
        const amr = await take_enrolment(idp, pending.id);
        if (amr === null) throw expired_interaction();
        return finish_second_factor(this, idp, pending, user, amr, client_ip(this.context, idp.config));
      }
      // A code is no answer for a user without an app, or for a request only a passkey satisfies (acr phr).
      if (!totp_allowed(pending)) return this.page(pending, "Use your passkey to continue.", false);
      const ip = client_ip(this.context, idp.config);
      const client_id = pending.interaction?.request.client_id ?? null;
      const failure = await check_second_factor(idp, user, input, ip, client_id);
      if (failure !== null) return this.page(pending, failure, (input.recovery_code ?? "") !== "");
      return finish_second_factor(this, idp, pending, user, AMR_TWO_FACTORS, ip);
    }

    async page(pending: Pending, error: string | null, recovery_open: boolean) {
      const interaction = pending.interaction;
      const client = interaction === null ? null : await idp.store.get_client(interaction.request.client_id);
      const passkey_base = `${idp.config.issuer}/interaction/${encodeURIComponent(pending.id)}/passkey`;
      // Not where passkeys cannot work (rp_id.ts): a user whose only factor is a passkey is told why.
      const usable = passkeys_usable(idp.config);
      const passkey =
        usable && (pending.enrol || pending.methods.passkeys > 0)
          ? { options: `${passkey_base}/options`, action: passkey_base, step: pending.enrol ? "enrol" : "second_factor" }
          : null;
      // Our scripts only where a passkey is offered (static/passkeys.js).
      set_page_headers(this.response.headers, interaction?.request.redirect_uri ?? null, passkey !== null);
      return this.view("two_factor", {
        ...layout_values(idp, pending.enrol ? "Add a second factor" : "Two-step verification"),
        ...(passkey === null ? {} : { scripts: passkey_scripts(idp) }),
        passkey,
        passkey_unavailable: !usable && !pending.enrol && pending.methods.passkeys > 0,
        totp: totp_allowed(pending),
        enrol: pending.enrol,
        totp_setup: pending.enrol ? `${idp.config.issuer}/interaction/${encodeURIComponent(pending.id)}/enrol-totp` : null,
        client_name: client === null ? "your account" : display_name(client),
        action: `${idp.config.issuer}/interaction/${encodeURIComponent(pending.id)}/two-factor`,
        csrf: pending.csrf,
        error,
        recovery_open,
      });
    }
  };

/** May this step be done with a code from the authenticator app? */
function totp_allowed(pending: Pending): boolean {
  return pending.methods.totp && !requires_passkey(pending.interaction?.request.acr_values ?? []);
}
