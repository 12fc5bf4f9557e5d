/**
 * Rows of `sessions`: the column spec (codec.ts encodes and decodes by it) and the builder that
 * completes a new row, shared by both adapters so they store exactly the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { NewSession, SessionRow } from "../types.ts";

/** The columns of `sessions`. */
export const session_spec: TableSpec<SessionRow> = {
  id_hash: "text",
  user_id: "text",
  auth_time: "int",
  amr: "json",
  acr: "text",
  created_at: "int",
  expires_at: "int",
  last_seen_at: "int",
  user_agent: "text",
  ip: "text",
};

/** The complete row of a new session, last seen when created. */
export function session_row(input: NewSession): SessionRow {
  const created = input.created_at ?? now_seconds();
  return {
    id_hash: input.id_hash,
    user_id: input.user_id,
    auth_time: input.auth_time,
    amr: input.amr,
    acr: input.acr ?? null,
    created_at: created,
    expires_at: input.expires_at,
    last_seen_at: input.last_seen_at ?? created,
    user_agent: input.user_agent ?? null,
    ip: input.ip ?? null,
  };
}
