/**
 * POST /admin/keys/:kid/revoke: a compromised signing key is revoked at once (the rules of the
 * API and `idp keys revoke`: oidc/admin/keys.ts): it leaves the JWKS, tokens it signed are
 * refused, and an active key hands signing to another first. Only from its confirmation page
 * (key_confirm.ts: its own form token, bound to the kid, and re-authentication).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import { revoke_signing_key } from "../../../oidc/admin/keys.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, console_values, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values } from "../../pages/admin_confirm.ts";
import { key_revoke_danger } from "./key_confirm.ts";

export const AdminConsoleKeyRevokeRequest = Fw.Request(
  "AdminConsoleKeyRevokeRequest",
  z.object({ csrf: z.string().max(256).optional(), password: z.string().max(4096).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleKeyRevoke = (idp: Provider) =>
  class AdminConsoleKeyRevoke extends Fw.Renderable(Fw.Endpoint(AdminConsoleKeyRevokeRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/keys/:kid/revoke`;

    async call() {
      const gate = await console_gate(idp, this, "revoke_keys");
      if ("refused" in gate) return gate.refused;
      const kid = this.route_params.kid ?? "";
      const key = idp.keys.list().find((row) => row.kid === kid);
      if (key === undefined) {
        return this.view(
          "message",
          {
            ...console_values(idp, gate.admin, "keys", "No such key"),
            message: "This signing key does not exist (any more).",
            link: { href: console_url(idp, "/keys"), text: "Back to the keys" },
            form: null,
          },
          404,
        );
      }
      const input = this.admin_console_key_revoke_request;
      const ip = client_ip(this.context, idp.config);
      const danger = key_revoke_danger(idp, key);
      const problem = await confirmation_problem(idp, gate.admin, danger, input, ip);
      if (problem !== null) {
        await record_console_event(idp, gate.admin.user, ip, { action: "key_revoked", outcome: "failure", details: { kid, reason: "reauthentication" } });
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger, { error: problem }), 403);
      }
      try {
        const { revoked, active } = await revoke_signing_key(idp.keys, kid);
        await record_console_event(idp, gate.admin.user, ip, { action: "key_revoked", details: { kid, alg: revoked.alg, status: revoked.status, active } });
        return this.redirect_to(`${console_url(idp, "/keys")}?done=key_revoked`, 303);
      } catch (error) {
        return this.view("admin/confirm", danger_values(idp, gate.admin, { ...danger, refusal: refusal_words(error) }), 409);
      }
    }
  };
