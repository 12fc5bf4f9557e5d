/**
 * GET /admin/registration-tokens/confirm?action=revoke&id=…: the confirmation page
 * (http/pages/admin_confirm.ts) of revoking an initial access token, named by its id (never the
 * token). Its form posts to /admin/registration-tokens/revoke (registration_token_revoke.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import type { Html } from "../../../fw/response.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { registration_token_of, registration_token_view } from "../../../oidc/admin/registration_tokens.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { InitialAccessTokenRow } from "../../../store/types.ts";
import { console_gate, console_url, console_values, when, type ConsoleEndpoint } from "../../pages/admin_console.ts";
import { confirm_url, danger_values, type Danger } from "../../pages/admin_confirm.ts";

/** The confirmation of revoking `row`; the token is bound to its id. */
export function registration_token_danger(idp: Provider, row: InitialAccessTokenRow): Danger {
  const view = registration_token_view(row, idp.now());
  return {
    kind: "registration_token",
    action: "revoke",
    subject: view.id,
    page: "registration_tokens",
    heading: { key: "admin.confirm.registration_token_revoke_title" },
    consequence: { key: "admin.confirm.registration_token_revoke", values: { id: view.id } },
    facts: [
      { label: "admin.token_id", value: view.id, code: true },
      { label: "admin.created", value: when(view.created_at) },
      ...(view.expires_at === null ? [] : [{ label: "admin.expires", value: when(view.expires_at) }]),
      ...(view.uses_left === null ? [] : [{ label: "admin.uses_left", value: String(view.uses_left) }]),
    ],
    button: { key: "admin.revoke_registration_token" },
    post: console_url(idp, "/registration-tokens/revoke"),
    fields: { id: view.id },
    back: console_url(idp, "/registration-tokens"),
    refusal: null,
  };
}

export function registration_token_confirm_url(idp: Provider, id: string): string {
  return confirm_url(idp, "/registration-tokens", "revoke", { id });
}

/** The token with that id, or the 404 page saying it is gone. */
export async function registration_token_or_404(
  idp: Provider,
  endpoint: Pick<ConsoleEndpoint, "view">,
  admin: ConsoleSession,
  id: string,
): Promise<{ row: InitialAccessTokenRow } | { missing: Html }> {
  try {
    return { row: await registration_token_of(idp.store, id) };
  } catch (error) {
    if (!(error instanceof AdminError)) throw error;
    return {
      missing: endpoint.view(
        "message",
        {
          ...console_values(idp, admin, "registration_tokens", "No such registration token"),
          message: "This registration token does not exist (any more).",
          link: { href: console_url(idp, "/registration-tokens"), text: "Back to the registration tokens" },
          form: null,
        },
        404,
      ),
    };
  }
}

export const AdminConsoleRegistrationTokenConfirmRequest = Fw.Request(
  "AdminConsoleRegistrationTokenConfirmRequest",
  z.object({ action: z.literal("revoke"), id: z.string().max(128) }),
  { from: ["query"] },
);

export const AdminConsoleRegistrationTokenConfirm = (idp: Provider) =>
  class AdminConsoleRegistrationTokenConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleRegistrationTokenConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/registration-tokens/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "manage_registration_tokens");
      if ("refused" in gate) return gate.refused;
      const found = await registration_token_or_404(idp, this, gate.admin, this.admin_console_registration_token_confirm_request.id);
      if ("missing" in found) return found.missing;
      return this.view("admin/confirm", danger_values(idp, gate.admin, registration_token_danger(idp, found.row)));
    }
  };
