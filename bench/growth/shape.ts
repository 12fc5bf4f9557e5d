/**
 * The shape of the seeded data, in one place for the seed (SQL) and the bench (TypeScript): each
 * row is a function of its number i (1-based) and the seed's `now`, so the bench can rebuild the
 * secret of any seeded token or session cookie without storing it anywhere.
 *
 * Secrets are made as the provider makes them (oidc/crypto/secrets.ts): a session cookie is 43
 * base64url characters stored as SHA-256 (base64url) of the value; an access or refresh token is an
 * ordered secret, 12 hex digits of its issue time in ms then 43 base64url characters, stored under
 * its time prefix followed by SHA-256 of the whole value (secret_key). The "random" part is the
 * SHA-256 of a label and i, so it is reproducible; the lookups only check the format.
 */
import { secret_key, sha256 } from "../../src/oidc/crypto/secrets.ts";

export const CALLBACK = "https://rp.example.com/callback";
export const PASSWORD = "growth-bench-password";

export type Counts = { users: number; sessions: number; tokens: number; codes: number; interactions: number };

/** Issue 21's sizes; codes and interactions in proportion (short-lived rows a busy provider holds). */
export const FULL: Counts = { users: 1_000_000, sessions: 1_000_000, tokens: 10_000_000, codes: 100_000, interactions: 100_000 };

export const ACCESS_TTL = 3600;
export const REFRESH_TTL = 30 * 24 * 3600;
export const SESSION_TTL = 14 * 24 * 3600;

export const username = (i: number) => `growth-${String(i).padStart(7, "0")}`;

/** Rows whose number mod 100 is below 10 are expired (~10%, what the purge removes). */
export const expired = (i: number) => i % 100 < 10;

/** One token in five is a refresh token (offline_access flows), the rest access tokens. */
export const is_refresh = (i: number) => i % 5 === 1;

/** Expiry of token i: live ones up to its TTL ahead, expired ones up to a week behind. */
export function token_expires_at(i: number, now: number): number {
  const ttl = is_refresh(i) ? REFRESH_TTL : ACCESS_TTL;
  return expired(i) ? now - 1 - ((i * 7919) % (7 * 86400)) : now + 120 + ((i * 7919) % (ttl - 240));
}

export function token_value(i: number, now: number): string {
  const created = token_expires_at(i, now) - (is_refresh(i) ? REFRESH_TTL : ACCESS_TTL);
  return `${(created * 1000 + (i % 1000)).toString(16).padStart(12, "0")}${sha256(`growth-token-${i}`)}`;
}

export const token_hash = (i: number, now: number) => secret_key(token_value(i, now));

/** Expiry of session i (seed.ts writes the same): live ones up to the session TTL ahead. */
export function session_expires_at(i: number, now: number): number {
  return expired(i) ? now - 1 - ((i * 7919) % (7 * 86400)) : now + 120 + ((i * 7919) % (SESSION_TTL - 240));
}

export const session_cookie = (i: number) => sha256(`growth-session-${i}`);
export const session_id_hash = (i: number) => sha256(session_cookie(i));

/** SQL twins of the functions above (PostgreSQL). `b64u(expr)`: base64url SHA-256 without padding. */
export const b64u = (expr: string) => `rtrim(translate(encode(sha256(convert_to(${expr}, 'UTF8')), 'base64'), '+/', '-_'), '=')`;
export const sql_username = (i: string) => `'growth-' || lpad(${i}::text, 7, '0')`;
/** A UUID-shaped id per user, as crypto.randomUUID() would give (the text form is what is stored). */
export const sql_user_id = (i: string) => `md5('growth-user-' || ${i})::uuid::text`;
export const sql_session_cookie = (i: string) => b64u(`'growth-session-' || ${i}`);
export const sql_expired = (i: string) => `(${i} % 100 < 10)`;
export const sql_is_refresh = (i: string) => `(${i} % 5 = 1)`;
export const sql_token_expires_at = (i: string, now: number) =>
  `(CASE WHEN ${sql_expired(i)} THEN ${now} - 1 - ((${i} * 7919) % (7 * 86400))
         ELSE ${now} + 120 + ((${i} * 7919) % ((CASE WHEN ${sql_is_refresh(i)} THEN ${REFRESH_TTL} ELSE ${ACCESS_TTL} END) - 240)) END)`;
