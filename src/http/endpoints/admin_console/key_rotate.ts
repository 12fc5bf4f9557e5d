/**
 * POST /admin/keys: the next key of every configured algorithm starts signing, or with `alg` the
 * next key of that algorithm alone (the rules of the API and `idp keys rotate [--alg]`:
 * oidc/admin/keys.ts). Only from its confirmation page (key_confirm.ts: its own form token,
 * bound to the alg, and re-authentication), as a rotation cannot be undone.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import { rotate_signing_keys } from "../../../oidc/admin/keys.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values } from "../../pages/admin_confirm.ts";
import { keys_danger } from "./key_confirm.ts";

export const AdminConsoleKeyRotateRequest = Fw.Request(
  "AdminConsoleKeyRotateRequest",
  z.object({ csrf: z.string().max(256).optional(), alg: z.string().max(16).optional(), password: z.string().max(4096).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleKeyRotate = (idp: Provider) =>
  class AdminConsoleKeyRotate extends Fw.Renderable(Fw.Endpoint(AdminConsoleKeyRotateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/keys`;

    async call() {
      const gate = await console_gate(idp, this, "rotate_keys");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_key_rotate_request;
      const ip = client_ip(this.context, idp.config);
      const alg = input.alg === "" ? undefined : input.alg;
      const danger = keys_danger(idp, alg);
      const problem = await confirmation_problem(idp, gate.admin, danger, input, ip);
      if (problem !== null) {
        await record_console_event(idp, gate.admin.user, ip, {
          action: "keys_rotated",
          outcome: "failure",
          details: { ...(alg !== undefined && { alg }), reason: "reauthentication" },
        });
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger, { error: problem }), 403);
      }
      try {
        const rotated = await rotate_signing_keys(idp.keys, idp.config.signing_algs, alg);
        await record_console_event(idp, gate.admin.user, ip, { action: "keys_rotated", details: { ...(alg !== undefined && { alg }), active: rotated } });
        return this.redirect_to(`${console_url(idp, "/keys")}?done=${alg === undefined ? "keys_rotated" : "key_rotated"}`, 303);
      } catch (error) {
        return this.view("admin/confirm", danger_values(idp, gate.admin, { ...danger, refusal: refusal_words(error) }), 409);
      }
    }
  };
