/**
 * Long-lived SCIM bearer tokens (`idp scim tokens`): the static "Secret Token" of Entra ID and
 * "HTTP Header" bearer of Okta, which a directory keeps for months, beside the client-credentials
 * access token (admin/auth.ts), which lasts IDP_ACCESS_TOKEN_TTL.
 *
 * - A token is `idp_scim_` and 256 random bits (base64url), shown once; only its SHA-256 is
 *   stored (migration 035), found by that hash and compared in constant time.
 * - It is good for SCIM only (the middleware accepts it under /scim/v2 alone), until it expires
 *   (`--expires-days`, 365 by default, at most 3650) or is revoked; then it is refused with
 *   `invalid_token` (RFC 6750 §3.1) like an expired access token.
 */
import { AdminError, invalid_field, not_found } from "../admin/errors.ts";
import { constant_time_equal, random_token, sha256 } from "../crypto/secrets.ts";
import { BearerError } from "../errors.ts";
import { StoreConflictError, type ScimTokenRow, type Store } from "../../store/types.ts";

export const SCIM_TOKEN_PREFIX = "idp_scim_";
export const DEFAULT_SCIM_TOKEN_DAYS = 365;
export const MAX_SCIM_TOKEN_DAYS = 3650;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const DAY = 86_400;

/** A token as listed: never its hash. */
export type ScimTokenView = { name: string; created_at: number; expires_at: number; revoked_at: number | null; state: "active" | "expired" | "revoked" };

export function scim_token_view(row: ScimTokenRow, now: number): ScimTokenView {
  const state = row.revoked_at !== null ? "revoked" : row.expires_at <= now ? "expired" : "active";
  return { name: row.name, created_at: row.created_at, expires_at: row.expires_at, revoked_at: row.revoked_at, state };
}

/** Makes a token; returns it (shown once) with its row. `invalid_request` naming the field, `conflict` for a taken name. */
export async function add_scim_token(store: Store, name: string, days: number, now: number): Promise<{ token: string; row: ScimTokenRow }> {
  if (!NAME.test(name)) throw invalid_field("name", `"${name.slice(0, 70)}" is not valid: use 1 to 64 ASCII letters, digits or _ . -, starting with a letter or digit`);
  if (!Number.isInteger(days) || days < 1 || days > MAX_SCIM_TOKEN_DAYS) throw invalid_field("expires_days", `must be a whole number of days from 1 to ${MAX_SCIM_TOKEN_DAYS}`);
  const token = `${SCIM_TOKEN_PREFIX}${random_token(32)}`;
  const row: ScimTokenRow = { name, token_hash: sha256(token), created_at: now, expires_at: now + days * DAY, revoked_at: null };
  try {
    await store.create_scim_token(row);
  } catch (error) {
    if (error instanceof StoreConflictError)
      throw new AdminError("conflict", `SCIM token ${name} exists already (revoked ones keep their name)`, [{ field: "name", message: "is taken" }]);
    throw error;
  }
  return { token, row };
}

export async function revoke_scim_token(store: Store, name: string, now: number): Promise<void> {
  if (await store.revoke_scim_token(name, now)) return;
  if ((await store.list_scim_tokens()).some((row) => row.name === name)) throw new AdminError("conflict", `SCIM token ${name} is revoked already`);
  throw not_found("SCIM token", name);
}

export function is_scim_token(token: string): boolean {
  return token.startsWith(SCIM_TOKEN_PREFIX);
}

/** The name of the token's row when it is good now; BearerError invalid_token otherwise (RFC 6750 §3.1). */
export async function scim_token_name(store: Store, token: string, now: number, realm: string): Promise<string> {
  const hash = sha256(token);
  const row = await store.get_scim_token_by_hash(hash);
  if (row === null || !constant_time_equal(row.token_hash, hash)) throw new BearerError("invalid_token", "the SCIM token is invalid", realm);
  if (row.revoked_at !== null) throw new BearerError("invalid_token", "the SCIM token is revoked", realm);
  if (row.expires_at <= now) throw new BearerError("invalid_token", "the SCIM token is expired", realm);
  return row.name;
}
