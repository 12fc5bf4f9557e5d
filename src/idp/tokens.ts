/**
 * Access tokens: opaque 256-bit random strings, stored as their SHA-256 (DESIGN §5). Being
 * looked up on every use, a revocation (logout, code replay) takes effect at once.
 */
import { random_token, sha256 } from "./crypto/secrets.ts";
import type { Provider } from "./provider.ts";
import type { CodeRow, TokenRow } from "./store/types.ts";

export type IssuedToken = { token: string; expires_in: number };

/** Issues the access token of a redeemed code; it carries the code's grant_id. */
export async function issue_access_token(idp: Provider, code: CodeRow, now: number): Promise<IssuedToken> {
  const token = random_token(32);
  const ttl = idp.config.tokens.access_token_ttl;
  await idp.store.insertToken({
    token_hash: sha256(token),
    kind: "access",
    client_id: code.client_id,
    user_id: code.user_id,
    scope: code.scope,
    grant_id: code.grant_id,
    session_id_hash: code.session_id_hash,
    auth_time: code.auth_time,
    amr: code.amr,
    nonce: code.nonce,
    created_at: now,
    expires_at: now + ttl,
  });
  return { token, expires_in: ttl };
}

export type AccessTokenCheck = { ok: true; token: TokenRow } | { ok: false; reason: "unknown" | "expired" | "revoked" };

/** Finds a live access token by its value. */
export async function find_access_token(idp: Provider, value: string): Promise<AccessTokenCheck> {
  // Our tokens are 43 base64url characters; anything else cannot be one (and is not hashed).
  if (!/^[A-Za-z0-9_-]{43}$/.test(value)) return { ok: false, reason: "unknown" };
  const token = await idp.store.getToken(sha256(value));
  if (token === null || token.kind !== "access") return { ok: false, reason: "unknown" };
  if (token.revoked_at !== null) return { ok: false, reason: "revoked" };
  if (token.expires_at <= idp.now()) return { ok: false, reason: "expired" };
  return { ok: true, token };
}
