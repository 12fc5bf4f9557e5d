/**
 * Rows of `initial_access_tokens`: the column spec (codec.ts encodes and decodes by it) and the
 * builder that completes a new row, shared by both adapters so they store exactly the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { InitialAccessTokenRow, NewInitialAccessToken } from "../types.ts";

/** The columns of `initial_access_tokens`. */
export const initial_access_token_spec: TableSpec<InitialAccessTokenRow> = {
  id: "text",
  token_hash: "text",
  created_at: "int",
  expires_at: "int",
  uses_left: "int",
};

/** An initial access token row: a random id (its public handle), no use limit unless given. */
export function initial_access_token_row(input: NewInitialAccessToken): InitialAccessTokenRow {
  return {
    id: input.id ?? crypto.randomUUID(),
    token_hash: input.token_hash,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
    uses_left: input.uses_left ?? null,
  };
}
