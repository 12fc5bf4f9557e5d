/**
 * POST /admin/registration-tokens: makes an initial access token (RFC 7591 §3) by the rules of
 * `idp registration-token create` (oidc/admin/registration_tokens.ts) and shows it on the answer
 * page, once: only its SHA-256 is stored. A refusal keeps the form as typed.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { create_registration_token } from "../../../oidc/admin/registration_tokens.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, console_values, refusal_words, when } from "../../pages/admin_console.ts";
import { registration_tokens_page, type RegistrationTokenForm } from "./registration_tokens.ts";

export const AdminConsoleRegistrationTokenCreateRequest = Fw.Request(
  "AdminConsoleRegistrationTokenCreateRequest",
  z.object({ csrf: z.string().max(256).optional(), expires_in: z.string().max(32).optional(), uses: z.string().max(32).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

/** A whole number typed as text; NaN for anything else, which the rule refuses in its words. */
function whole_number(text: string): number {
  return /^\d{1,12}$/.test(text) ? Number(text) : Number.NaN;
}

export const AdminConsoleRegistrationTokenCreate = (idp: Provider) =>
  class AdminConsoleRegistrationTokenCreate extends Fw.Renderable(Fw.Endpoint(AdminConsoleRegistrationTokenCreateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/registration-tokens`;

    async call() {
      const gate = await console_gate(idp, this, "manage_registration_tokens");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_registration_token_create_request;
      check_console_csrf(gate.admin, input.csrf);
      const form: RegistrationTokenForm = { expires_in: (input.expires_in ?? "").trim(), uses: (input.uses ?? "").trim() };
      const ip = client_ip(this.context, idp.config);
      try {
        // An empty number of uses: no limit.
        const { token, row } = await create_registration_token(
          idp.store,
          { expires_in: whole_number(form.expires_in), uses: form.uses === "" ? null : whole_number(form.uses) },
          idp.now(),
        );
        await record_console_event(idp, gate.admin.user, ip, {
          action: "registration_token_created",
          details: { id: row.id, expires_at: row.expires_at, uses_left: row.uses_left },
        });
        return this.view(
          "admin/registration_token",
          {
            ...console_values(idp, gate.admin, "registration_tokens", "Registration token created"),
            token,
            id: row.id,
            expires: row.expires_at === null ? null : when(row.expires_at),
            uses_left: row.uses_left,
            registration: idp.config.registration,
            register_url: `${idp.config.issuer}${PATHS.register}`,
            back: console_url(idp, "/registration-tokens"),
          },
          201,
        );
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, {
          action: "registration_token_created",
          outcome: "failure",
          details: { expires_in: form.expires_in, uses: form.uses },
        });
        return this.view("admin/registration_tokens", await registration_tokens_page(idp, gate.admin, { error: words, form }), 422);
      }
    }
  };
