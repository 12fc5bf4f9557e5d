/**
 * A client's secret follows its authentication method (RFC 7591 §2 token_endpoint_auth_method):
 * a client that moves to a secret-based method without having a secret gets a new one, answered
 * once; one that moves away from secrets (to private_key_jwt or none) loses its secret, so a
 * forgotten one cannot come back to life with a later move back. Between the two secret-based
 * methods the secret stays. RFC 7592 §2.2 updates (PUT /register/:client_id), the admin API's
 * PATCH and the console's application page change a client's method through this one rule.
 * A secret is 256-bit random, stored only as its SHA-256 (docs/ARCHITECTURE.md, "Security at rest").
 */
import type { ClientPatch, ClientRow, UnixSeconds } from "../../store/types.ts";
import { random_token, sha256 } from "../crypto/secrets.ts";

/** Methods whose client holds a shared secret (the ones a rotation applies to). */
export const SECRET_AUTH_METHODS: ReadonlySet<string> = new Set(["client_secret_basic", "client_secret_post"]);

/** What a change of `client`'s method to `method` does to its secret: the store patch, and the new secret (null: none was made). */
export type SecretChange = { patch: ClientPatch; secret: string | null };

export function secret_for_method(client: ClientRow, method: string, now: UnixSeconds): SecretChange {
  const wants_secret = SECRET_AUTH_METHODS.has(method);
  const secret = wants_secret && client.client_secret_hash === null ? random_token(32) : null;
  const client_secret_hash = !wants_secret ? null : secret === null ? client.client_secret_hash : sha256(secret);
  if (client_secret_hash === client.client_secret_hash) return { patch: {}, secret: null };
  // A new secret, or none, leaves no previous secret of an administrator's rotation working.
  return {
    patch: {
      client_secret_hash,
      client_secret_expires_at: 0,
      client_secret_created_at: secret === null ? null : now,
      client_secret_used_at: null,
      previous_secret_hash: null,
      previous_secret_expires_at: null,
      previous_secret_created_at: null,
      previous_secret_used_at: null,
    },
    secret,
  };
}
