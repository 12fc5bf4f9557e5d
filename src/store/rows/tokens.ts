/**
 * Rows of `tokens`: the column spec (codec.ts encodes and decodes by it) and the builder that
 * completes a new row, shared by both adapters so they store exactly the same defaults, and the
 * SQL both use to read a token of a revoked grant or family as revoked. What
 * rotate_refresh_token answers is decided in ../single_use.ts.
 */
import { columns, type TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { NewToken, TokenRow } from "../types.ts";

/** The columns of `tokens`. */
export const token_spec: TableSpec<TokenRow> = {
  token_hash: "text",
  kind: "text",
  client_id: "text",
  user_id: "text",
  scope: "text",
  grant_id: "text",
  family_id: "text",
  session_id_hash: "text",
  auth_time: "int",
  acr: "text",
  amr: "json",
  claims: "json",
  nonce: "text",
  created_at: "int",
  expires_at: "int",
  revoked_at: "int",
  rotated_at: "int",
  jkt: "text",
  resources: "json",
  act: "json",
};

/**
 * When the grant or family of the token row `t` was revoked as a whole (migration 022,
 * revoked_grants), NULL when it was not. One text for both databases.
 */
const GRANT_REVOKED_AT = "(SELECT min(r.revoked_at) FROM revoked_grants r WHERE r.grant_id IN (t.grant_id, t.family_id))";

/**
 * The columns of a token as read (`FROM tokens t`): `revoked_at` is the row's, or else the time
 * its grant or family was revoked, so a token inserted by a request that raced the revocation
 * (the winner of a replayed code or refresh token) reads as revoked once the revocation committed.
 */
export const TOKEN_READ_COLUMNS = columns(token_spec)
  .map((name) => (name === "revoked_at" ? `COALESCE(t.revoked_at, ${GRANT_REVOKED_AT}) AS revoked_at` : `t.${name}`))
  .join(", ");

/** The condition that the grant and family of the token row `tokens` were not revoked as a whole. */
export const GRANT_NOT_REVOKED = "NOT EXISTS (SELECT 1 FROM revoked_grants r WHERE r.grant_id IN (tokens.grant_id, tokens.family_id))";

/** LIKE pattern (ESCAPE '!') matching " <scope> " that holds offline_access (OIDC Core §11). */
export const OFFLINE_SCOPE_PATTERN = "% offline!_access %";

/** The complete row of a new token, neither revoked nor rotated. */
export function token_row(input: NewToken): TokenRow {
  return {
    token_hash: input.token_hash,
    kind: input.kind,
    client_id: input.client_id,
    user_id: input.user_id ?? null,
    scope: input.scope,
    grant_id: input.grant_id,
    family_id: input.family_id ?? null,
    session_id_hash: input.session_id_hash ?? null,
    auth_time: input.auth_time ?? null,
    acr: input.acr ?? null,
    amr: input.amr ?? [],
    claims: input.claims ?? null,
    nonce: input.nonce ?? null,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
    revoked_at: null,
    rotated_at: null,
    jkt: input.jkt ?? null,
    resources: input.resources ?? null,
    act: input.act ?? null,
  };
}
