/**
 * GET /admin/keys: the signing keys (ids, algorithms, states, dates; never key material); per
 * configured algorithm (IDP_SIGNING_ALGS) its schedule: the key that signs now, the published
 * next key that takes over at the next rotation, the retired keys and when each leaves the JWKS;
 * and the links to rotate one algorithm's key or all of them, and to revoke a key.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_notice, console_values, when } from "../../pages/admin_console.ts";
import { key_revoke_confirm_url, keys_confirm_url } from "./key_confirm.ts";

export const AdminConsoleKeysRequest = Fw.Request("AdminConsoleKeysRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

export function keys_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const list = idp.keys.list();
  const keys = list.map((key) => ({
    ...key,
    created: when(key.created_at),
    activated: when(key.activated_at),
    retires: when(key.retire_at),
    // A revocation is confirmed on its own page too (key_confirm.ts).
    revoke_url: key_revoke_confirm_url(idp, key.kid),
  }));
  // Per configured alg: when its key hands over on schedule (IDP_KEY_ROTATION_DAYS; none when 0: by hand only).
  const algs = idp.config.signing_algs.map((alg) => {
    const mine = list.filter((key) => key.alg === alg);
    // With several active rows (concurrent rotations, a key held back until published: keys/view.ts) the ring's signer is the one that signs.
    const signing = idp.keys.signing_algs().includes(alg) ? idp.keys.active_kid(alg) : null;
    const active = mine.find((key) => key.kid === signing) ?? null;
    const next = mine.find((key) => key.status === "next") ?? null;
    return {
      alg,
      active: active === null ? null : { kid: active.kid, since: when(active.activated_at) },
      next: next === null ? null : { kid: next.kid, since: when(next.created_at) },
      next_rotation: signing === null || idp.keys.next_rotation(alg) === null ? null : when(idp.keys.next_rotation(alg)),
      retired: mine.filter((key) => key.status === "retired").map((key) => ({ kid: key.kid, leaves: when(key.retire_at) })),
      rotate_url: keys_confirm_url(idp, alg),
    };
  });
  // The schedule: the rotation period (0: by hand); the latest rotation; how long a retired key stays; how soon other instances follow.
  const activations = list.map((key) => key.activated_at).filter((at): at is number => at !== null);
  const schedule = {
    rotation_days: idp.config.key_rotation_days,
    last_rotation: when(activations.length === 0 ? null : Math.max(...activations)),
    retire_hours: Math.round((idp.config.tokens.id_token_ttl / 3600) * 10) / 10,
    poll_seconds: idp.config.keys_poll_seconds,
  };
  // The rotation is confirmed on its own page (key_confirm.ts).
  return console_values(idp, admin, "keys", "Signing keys", { keys, algs, schedule, rotate_url: keys_confirm_url(idp), ...extra });
}

export const AdminConsoleKeys = (idp: Provider) =>
  class AdminConsoleKeys extends Fw.Renderable(Fw.Endpoint(AdminConsoleKeysRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/keys`;

    async call() {
      const gate = await console_gate(idp, this, "view_keys");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/keys", keys_page(idp, gate.admin, { notice: console_notice(this.admin_console_keys_request.done) }));
    }
  };
