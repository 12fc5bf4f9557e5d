/**
 * GET /admin/registration-tokens: the initial access tokens of dynamic client registration
 * (RFC 7591 §3): id, creation, expiry, uses left and status, never the token or its hash
 * (oidc/admin/registration_tokens.ts); the form to make one (registration_token_create.ts) and
 * the links to revoke one (registration_token_confirm.ts). When IDP_REGISTRATION is not `token`,
 * POST /register asks for no token: the page says so.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import { DEFAULT_EXPIRES_IN, MAX_USES, registration_token_view } from "../../../oidc/admin/registration_tokens.ts";
import { PATHS } from "../../../oidc/discovery/paths.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_notice, console_values, when } from "../../pages/admin_console.ts";
import { registration_token_confirm_url } from "./registration_token_confirm.ts";

export const AdminConsoleRegistrationTokensRequest = Fw.Request("AdminConsoleRegistrationTokensRequest", z.object({ done: z.string().max(64).optional() }), {
  from: ["query"],
});

/** The lifetimes the form offers, in seconds (0: never expires); the rule takes any up to ten years. */
export const EXPIRY_CHOICES = [
  { seconds: 3600, label: "admin.expiry.hour" },
  { seconds: DEFAULT_EXPIRES_IN, label: "admin.expiry.day" },
  { seconds: 7 * 86_400, label: "admin.expiry.week" },
  { seconds: 0, label: "admin.expiry.never" },
] as const;

/** The create form as typed: kept when the rules refuse it. */
export type RegistrationTokenForm = { expires_in: string; uses: string };

export async function registration_tokens_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const now = idp.now();
  const tokens = (await idp.store.list_initial_access_tokens()).map((row) => {
    const view = registration_token_view(row, now);
    return {
      ...view,
      created: when(view.created_at),
      expires: view.expires_at === null ? null : when(view.expires_at),
      // A revocation is confirmed on its own page (registration_token_confirm.ts).
      revoke_url: registration_token_confirm_url(idp, view.id),
    };
  });
  return console_values(idp, admin, "registration_tokens", "Registration tokens", {
    tokens,
    registration: idp.config.registration,
    register_url: `${idp.config.issuer}${PATHS.register}`,
    expiries: EXPIRY_CHOICES,
    max_uses: MAX_USES,
    form: { expires_in: String(DEFAULT_EXPIRES_IN), uses: "" } satisfies RegistrationTokenForm,
    ...extra,
  });
}

export const AdminConsoleRegistrationTokens = (idp: Provider) =>
  class AdminConsoleRegistrationTokens extends Fw.Renderable(Fw.Endpoint(AdminConsoleRegistrationTokensRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/registration-tokens`;

    async call() {
      const gate = await console_gate(idp, this, "view_registration_tokens");
      if ("refused" in gate) return gate.refused;
      return this.view(
        "admin/registration_tokens",
        await registration_tokens_page(idp, gate.admin, { notice: console_notice(this.admin_console_registration_tokens_request.done) }),
      );
    }
  };
