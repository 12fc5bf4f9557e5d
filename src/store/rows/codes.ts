/**
 * Rows of `codes`: the column spec (codec.ts encodes and decodes by it) and the builder that
 * completes a new row, shared by both adapters so they store exactly the same defaults. What
 * consume_code answers is decided in ../single_use.ts.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { CodeRow, NewCode } from "../types.ts";

/** The columns of `codes`. */
export const code_spec: TableSpec<CodeRow> = {
  code_hash: "text",
  client_id: "text",
  user_id: "text",
  session_id_hash: "text",
  redirect_uri: "text",
  scope: "text",
  nonce: "text",
  code_challenge: "text",
  code_challenge_method: "text",
  auth_time: "int",
  acr: "text",
  amr: "json",
  claims: "json",
  grant_id: "text",
  created_at: "int",
  expires_at: "int",
  consumed_at: "int",
  dpop_jkt: "text",
  resources: "json",
};

/** The complete row of a new code, not consumed. */
export function code_row(input: NewCode): CodeRow {
  return {
    code_hash: input.code_hash,
    client_id: input.client_id,
    user_id: input.user_id,
    session_id_hash: input.session_id_hash ?? null,
    redirect_uri: input.redirect_uri,
    scope: input.scope,
    nonce: input.nonce ?? null,
    code_challenge: input.code_challenge ?? null,
    code_challenge_method: input.code_challenge_method ?? null,
    auth_time: input.auth_time,
    acr: input.acr ?? null,
    amr: input.amr ?? [],
    claims: input.claims ?? null,
    grant_id: input.grant_id,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
    consumed_at: null,
    dpop_jkt: input.dpop_jkt ?? null,
    resources: input.resources ?? null,
  };
}
