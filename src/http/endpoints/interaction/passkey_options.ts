/**
 * POST /interaction/:id/passkey/options: the WebAuthn options (a fresh single-use challenge) for
 * static/passkeys.js on the sign-in pages, as JSON. `step`:
 * - `login`: a sign-in without a password, with any passkey the browser holds for this site;
 * - `second_factor`: after the password, one of that user's passkeys;
 * - `enrol`: after the password, a user who must have a second factor adds a passkey.
 * The form token of the page is required (it changes state: a challenge is stored).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { load_pending } from "../../../oidc/signin/second_factor.ts";
import { check_form_token } from "../../../oidc/browser/form_tokens.ts";
import { check_csrf, expired_interaction, load_interaction } from "../../../oidc/authorize/interactions.ts";
import { authentication_options, registration_options } from "../../../oidc/signin/passkeys/ceremony.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";

export const PasskeyOptionsRequest = Fw.Request(
  "PasskeyOptionsRequest",
  z.object({ id: z.string().max(128), step: z.enum(["login", "second_factor", "enrol"]), csrf: z.string().max(256).optional() }),
  { on_invalid: invalid_form },
);

export const PasskeyOptions = (idp: Provider) =>
  class PasskeyOptions extends Fw.Endpoint(PasskeyOptionsRequest, Fw.Response.Json) {
    static route = "POST /interaction/:id/passkey/options";

    async call() {
      const input = this.passkey_options_request;
      if (input.step === "login") {
        const interaction = await load_interaction(idp, input.id, this.cookies);
        if (interaction === null) throw expired_interaction();
        check_csrf(interaction, input.csrf);
        return this.json(await authentication_options(idp, "login", `interaction:${interaction.id}`, null));
      }
      const pending = await load_pending(idp, input.id, this.cookies);
      check_form_token(input.csrf, pending.csrf, "The form was not sent from this sign-in page. Go back and start again.");
      if (pending.user === null) throw expired_interaction();
      if (input.step === "enrol") {
        if (!pending.enrol) throw expired_interaction();
        return this.json(await registration_options(idp, pending.user, `enrol:${pending.id}`));
      }
      if (pending.methods.passkeys === 0) throw expired_interaction();
      return this.json(await authentication_options(idp, "second_factor", `pending:${pending.id}`, pending.user));
    }
  };
