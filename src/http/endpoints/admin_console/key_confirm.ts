/**
 * GET /admin/keys/confirm?action=rotate: the confirmation page (http/pages/admin_confirm.ts) of a
 * signing key rotation, naming the keys that sign now; its form posts to /admin/keys
 * (key_rotate.ts). GET /admin/keys/confirm?action=revoke&kid=…: the confirmation of a
 * compromised key's revocation; its form posts to /admin/keys/<kid>/revoke (key_revoke.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { KeyInfo } from "../../../oidc/keys/keyring.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_url, console_values } from "../../pages/admin_console.ts";
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

/** The confirmation of the revocation of `key` (the token is bound to its kid). */
export function key_revoke_danger(idp: Provider, key: KeyInfo): Danger {
  return {
    kind: "keys",
    action: "revoke",
    subject: key.kid,
    page: "keys",
    heading: { key: "admin.confirm.key_revoke_title", values: { kid: key.kid } },
    consequence: { key: "admin.confirm.key_revoke", values: { seconds: idp.config.keys_poll_seconds } },
    facts: [
      { label: "admin.key_id", value: key.kid, code: true },
      { label: "admin.algorithm", value: key.alg },
      { label: "admin.state", value: key.status },
    ],
    button: { key: "admin.revoke_key" },
    post: console_url(idp, `/keys/${encodeURIComponent(key.kid)}/revoke`),
    fields: {},
    back: console_url(idp, "/keys"),
    refusal: null,
  };
}

export function key_revoke_confirm_url(idp: Provider, kid: string): string {
  return confirm_url(idp, "/keys", "revoke", { kid });
}

export const AdminConsoleKeyConfirmRequest = Fw.Request("AdminConsoleKeyConfirmRequest", z.object({ action: z.enum(["rotate", "revoke"]), kid: z.string().max(128).optional() }), {
  from: ["query"],
});

export const AdminConsoleKeyConfirm = (idp: Provider) =>
  class AdminConsoleKeyConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleKeyConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/keys/confirm`;

    async call() {
      const { action, kid } = this.admin_console_key_confirm_request;
      const gate = await console_gate(idp, this, action === "rotate" ? "rotate_keys" : "revoke_keys");
      if ("refused" in gate) return gate.refused;
      if (action === "rotate") return this.view("admin/confirm", danger_values(idp, gate.admin, keys_danger(idp)));
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
      return this.view("admin/confirm", danger_values(idp, gate.admin, key_revoke_danger(idp, key)));
    }
  };
