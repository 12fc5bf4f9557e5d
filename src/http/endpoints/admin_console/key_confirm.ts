/**
 * GET /admin/keys/confirm?action=rotate: the confirmation page (http/pages/admin_confirm.ts) of a
 * signing key rotation, naming the keys that sign now. Its form posts to /admin/keys
 * (key_rotate.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_url } from "../../pages/admin_console.ts";
import { confirm_url, danger_values, type Danger } from "../../pages/admin_confirm.ts";

/** The confirmation of a rotation of every configured algorithm's key. */
export function keys_danger(idp: Provider): Danger {
  return {
    kind: "keys",
    action: "rotate",
    subject: "keys",
    page: "keys",
    heading: { key: "admin.confirm.keys_rotate_title" },
    consequence: { key: "admin.confirm.keys_rotate" },
    facts: idp.keys
      .list()
      .filter((key) => key.status === "active")
      .map((key) => ({ label: "admin.confirm.signing_now", value: `${key.kid} (${key.alg})`, code: true })),
    button: { key: "admin.rotate_keys" },
    post: console_url(idp, "/keys"),
    fields: {},
    back: console_url(idp, "/keys"),
    refusal: null,
  };
}

export function keys_confirm_url(idp: Provider): string {
  return confirm_url(idp, "/keys", "rotate");
}

export const AdminConsoleKeyConfirmRequest = Fw.Request("AdminConsoleKeyConfirmRequest", z.object({ action: z.literal("rotate") }), { from: ["query"] });

export const AdminConsoleKeyConfirm = (idp: Provider) =>
  class AdminConsoleKeyConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleKeyConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/keys/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "rotate_keys");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/confirm", danger_values(idp, gate.admin, keys_danger(idp)));
    }
  };
