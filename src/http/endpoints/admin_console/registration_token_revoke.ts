/**
 * POST /admin/registration-tokens/revoke: deletes an initial access token (the rule of
 * `idp registration-token revoke`: oidc/admin/registration_tokens.ts); POST /register no longer
 * accepts it. Only from its confirmation page (registration_token_confirm.ts: its own form
 * token, bound to the id, and re-authentication).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import { revoke_registration_token } from "../../../oidc/admin/registration_tokens.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values } from "../../pages/admin_confirm.ts";
import { registration_token_danger, registration_token_or_404 } from "./registration_token_confirm.ts";

export const AdminConsoleRegistrationTokenRevokeRequest = Fw.Request(
  "AdminConsoleRegistrationTokenRevokeRequest",
  z.object({ csrf: z.string().max(256).optional(), id: z.string().max(128), password: z.string().max(4096).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleRegistrationTokenRevoke = (idp: Provider) =>
  class AdminConsoleRegistrationTokenRevoke extends Fw.Renderable(Fw.Endpoint(AdminConsoleRegistrationTokenRevokeRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/registration-tokens/revoke`;

    async call() {
      const gate = await console_gate(idp, this, "manage_registration_tokens");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_registration_token_revoke_request;
      const found = await registration_token_or_404(idp, this, gate.admin, input.id);
      if ("missing" in found) return found.missing;
      const ip = client_ip(this.context, idp.config);
      const danger = registration_token_danger(idp, found.row);
      const problem = await confirmation_problem(idp, gate.admin, danger, input, ip);
      if (problem !== null) {
        await record_console_event(idp, gate.admin.user, ip, {
          action: "registration_token_revoked",
          outcome: "failure",
          details: { id: found.row.id, reason: "reauthentication" },
        });
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger, { error: problem }), 403);
      }
      try {
        const row = await revoke_registration_token(idp.store, found.row.id);
        await record_console_event(idp, gate.admin.user, ip, { action: "registration_token_revoked", details: { id: row.id } });
        return this.redirect_to(`${console_url(idp, "/registration-tokens")}?done=registration_token_revoked`, 303);
      } catch (error) {
        return this.view("admin/confirm", danger_values(idp, gate.admin, { ...danger, refusal: refusal_words(error) }), 409);
      }
    }
  };
