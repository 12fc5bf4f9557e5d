/**
 * Rows of `interactions`: the column spec (codec.ts encodes and decodes by it) and the builder
 * that completes a new row, shared by both adapters so they store exactly the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { InteractionRow, NewInteraction } from "../types.ts";

/** The columns of `interactions`. */
export const interaction_spec: TableSpec<InteractionRow> = {
  id: "text",
  params: "json",
  session_id_hash: "text",
  result: "json",
  created_at: "int",
  expires_at: "int",
};

/** The complete row of a new interaction: no session and no result yet unless given. */
export function interaction_row(input: NewInteraction): InteractionRow {
  return {
    id: input.id,
    params: input.params,
    session_id_hash: input.session_id_hash ?? null,
    result: input.result ?? null,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
  };
}
