/**
 * POST /interaction/:id/passkey: the result of a passkey ceremony on the sign-in pages, posted by
 * static/passkeys.js in a form (so the browser follows the redirects to the application as after
 * a password). `step` as in passkey_options.ts:
 * - `login`: signs in without a password (amr ["hwk"|"swk", "user"]);
 * - `second_factor`: completes the password step (amr ["pwd", "hwk"|"swk", "mfa"]);
 * - `enrol`: stores the new passkey, then completes the password step as a second factor.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { load_pending } from "../../../oidc/signin/second_factor.ts";
import { sign_in } from "../../../oidc/signin/complete.ts";
import { account_url } from "../../../oidc/browser/account_guard.ts";
import { record_event } from "../../../oidc/audit.ts";
import { check_form_token } from "../../../oidc/browser/form_tokens.ts";
import { PageError } from "../../../oidc/errors.ts";
import { check_csrf, expired_interaction, load_interaction } from "../../../oidc/authorize/interactions.ts";
import { default_passkey_name, parse_response, register_passkey, verify_assertion, type CeremonyFailure } from "../../../oidc/signin/passkeys/ceremony.ts";
import { passkey_amr } from "../../../oidc/signin/methods.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { continue_after_sign_in, finish_second_factor } from "../../authorization_response.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";

export const PasskeySignInRequest = Fw.Request(
  "PasskeySignInRequest",
  z.object({
    id: z.string().max(128),
    step: z.enum(["login", "second_factor", "enrol"]),
    csrf: z.string().max(256).optional(),
    response: z
      .string()
      .max(64 * 1024)
      .optional(),
  }),
  { on_invalid: invalid_form },
);

/** The page of a ceremony that did not pass: what happened, and the way back. */
export function passkey_refused(failure: CeremonyFailure): PageError {
  return new PageError("Passkey not accepted", `${failure.message} Go back to the sign-in page to try again.`, "access_denied");
}

export const PasskeySignIn = (idp: Provider) =>
  class PasskeySignIn extends Fw.Renderable(Fw.Endpoint(PasskeySignInRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = "POST /interaction/:id/passkey";

    async call() {
      const input = this.passkey_sign_in_request;
      const ip = client_ip(this.context, idp.config);
      const response = parse_response(input.response);
      if (input.step === "login") {
        const interaction = await load_interaction(idp, input.id, this.cookies);
        if (interaction === null) return this.redirect_to(account_url(idp, "login"), 303);
        check_csrf(interaction, input.csrf);
        const client_id = interaction.request.client_id;
        const client = await idp.store.get_client(client_id);
        if (client === null) throw expired_interaction();
        const result = await verify_assertion(idp, "login", `interaction:${interaction.id}`, response, null, { ip, client_id });
        if (!result.ok) throw passkey_refused(result);
        const { session, cookie } = await sign_in(idp, this.cookies, result.user, result.amr, ip, client_id, this.headers.get("user-agent"));
        this.set_cookie(cookie.name, cookie.value, cookie.options);
        return continue_after_sign_in(this, idp, client, interaction, session);
      }

      const pending = await load_pending(idp, input.id, this.cookies);
      check_form_token(input.csrf, pending.csrf, "The form was not sent from this sign-in page. Go back and start again.");
      const user = pending.user;
      if (user === null) throw expired_interaction();
      const client_id = pending.interaction?.request.client_id ?? null;
      if (input.step === "enrol") {
        if (!pending.enrol) throw expired_interaction();
        const count = await idp.store.count_passkeys_for_user(user.id);
        const added = await register_passkey(idp, user, `enrol:${pending.id}`, response, default_passkey_name(count));
        if (!added.ok) throw passkey_refused(added);
        await record_event(idp, { type: "passkey_added", outcome: "success", user_id: user.id, client_id, ip, details: { passkey_id: added.passkey.id, at_sign_in: true } });
        return finish_second_factor(this, idp, pending, user, passkey_amr(added.passkey.backup_eligible, true), ip);
      }
      if (pending.methods.passkeys === 0) throw expired_interaction();
      const result = await verify_assertion(idp, "second_factor", `pending:${pending.id}`, response, user, { ip, client_id });
      if (!result.ok) throw passkey_refused(result);
      await record_event(idp, { type: "two_factor", outcome: "success", user_id: user.id, client_id, ip, details: { method: "passkey" } });
      return finish_second_factor(this, idp, pending, user, result.amr, ip);
    }
  };
