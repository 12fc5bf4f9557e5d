/**
 * Rows of `user_tokens`: the column spec (codec.ts encodes and decodes by it) and the builder
 * that completes a new row, shared by both adapters so they store exactly the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { UnixSeconds, UserTokenRow } from "../types.ts";
import { USER_TOKEN_PURPOSES } from "../types/user_tokens.ts";
import { StoreError } from "../types/errors.ts";

/** The columns of `user_tokens`. */
export const user_token_spec: TableSpec<UserTokenRow> = {
  token_hash: "text",
  user_id: "text",
  purpose: "text",
  email: "text",
  created_at: "int",
  expires_at: "int",
};

/** A user token row with `created_at` filled in; an unknown purpose is refused. */
export function user_token_row(input: Omit<UserTokenRow, "created_at"> & { created_at?: UnixSeconds }): UserTokenRow {
  if (!USER_TOKEN_PURPOSES.includes(input.purpose)) {
    throw new StoreError(`user token purpose "${input.purpose}" is not one of ${USER_TOKEN_PURPOSES.join(", ")}`);
  }
  return {
    token_hash: input.token_hash,
    user_id: input.user_id,
    purpose: input.purpose,
    email: input.email ?? null,
    created_at: input.created_at ?? now_seconds(),
    expires_at: input.expires_at,
  };
}
