/**
 * GET /admin/keys/confirm?action=rotate: the confirmation page (http/pages/admin_confirm.ts) of a
 * signing key rotation, naming the keys that sign now; with `alg=ES256`, of that algorithm's key
 * alone, naming the key that signs now and the published next key that takes over. Its form
 * posts to /admin/keys (key_rotate.ts). GET /admin/keys/confirm?action=revoke&kid=…: the
 * confirmation of a compromised key's revocation; its form posts to /admin/keys/<kid>/revoke
 * (key_revoke.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { rotation_alg } from "../../../oidc/admin/keys.ts";
import type { KeyInfo } from "../../../oidc/keys/keyring.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_url, console_values, refusal_words } from "../../pages/admin_console.ts";
import { confirm_url, danger_values, type Danger } from "../../pages/admin_confirm.ts";

/**
 * The confirmation of a rotation of every configured algorithm's key, or of `alg`'s alone (the
 * form's token is bound to it; an alg that is not configured is refused, with no form).
 */
export function keys_danger(idp: Provider, alg?: string): Danger {
  const back = console_url(idp, "/keys");
  const base = { kind: "keys", action: "rotate", page: "keys", post: console_url(idp, "/keys"), back, refusal: null } as const;
  if (alg === undefined) {
    return {
      ...base,
      subject: "keys",
      heading: { key: "admin.confirm.keys_rotate_title" },
      consequence: { key: "admin.confirm.keys_rotate" },
      facts: idp.keys
        .list()
        .filter((key) => key.status === "active")
        .map((key) => ({ label: "admin.confirm.signing_now", value: `${key.kid} (${key.alg})`, code: true })),
      button: { key: "admin.rotate_keys" },
      fields: {},
    };
  }
  let refusal: string | null = null;
  try {
    rotation_alg(idp.config.signing_algs, alg);
  } catch (error) {
    refusal = refusal_words(error);
  }
  const mine = idp.keys.list().filter((key) => key.alg === alg);
  const next = mine.find((key) => key.status === "next");
  return {
    ...base,
    subject: alg,
    heading: { key: "admin.confirm.key_rotate_title", values: { alg } },
    consequence: { key: "admin.confirm.key_rotate", values: { alg } },
    facts: [
      ...mine.filter((key) => key.status === "active").map((key) => ({ label: "admin.confirm.signing_now", value: key.kid, code: true })),
      ...(next === undefined ? [] : [{ label: "admin.confirm.takes_over", value: next.kid, code: true }]),
    ],
    button: { key: "admin.rotate_alg", values: { alg } },
    fields: { alg },
    refusal,
  };
}

/** The confirmation of a rotation of every configured alg, or of `alg` alone. */
export function keys_confirm_url(idp: Provider, alg?: string): string {
  return confirm_url(idp, "/keys", "rotate", alg === undefined ? {} : { alg });
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

export const AdminConsoleKeyConfirmRequest = Fw.Request(
  "AdminConsoleKeyConfirmRequest",
  z.object({ action: z.enum(["rotate", "revoke"]), kid: z.string().max(128).optional(), alg: z.string().max(16).optional() }),
  { from: ["query"] },
);

export const AdminConsoleKeyConfirm = (idp: Provider) =>
  class AdminConsoleKeyConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleKeyConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/keys/confirm`;

    async call() {
      const { action, kid, alg } = this.admin_console_key_confirm_request;
      const gate = await console_gate(idp, this, action === "rotate" ? "rotate_keys" : "revoke_keys");
      if ("refused" in gate) return gate.refused;
      if (action === "rotate") {
        const danger = keys_danger(idp, alg);
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger), danger.refusal === null ? 200 : 422);
      }
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
