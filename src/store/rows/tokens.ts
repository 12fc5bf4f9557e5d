/**
 * Rows of `tokens`: the column spec (codec.ts encodes and decodes by it) and the builder that
 * completes a new row, shared by both adapters so they store exactly the same defaults. What
 * rotate_refresh_token answers is decided in ../single_use.ts.
 */
import type { TableSpec } from "../codec.ts";
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
