/**
 * Rows of `signing_keys`: the column spec (codec.ts encodes and decodes by it), the builder that
 * completes a new row and the one that changes a key's status, shared by both adapters so they
 * store exactly the same values.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { KeyRow, KeyStatus, NewKey, UnixSeconds } from "../types.ts";

/** The columns of `signing_keys`. */
export const key_spec: TableSpec<KeyRow> = {
  kid: "text",
  alg: "text",
  use: "text",
  private_jwk: "json",
  public_jwk: "json",
  status: "text",
  created_at: "int",
  activated_at: "int",
  retire_at: "int",
  updated_at: "int",
};

/** The complete row of a new key: a signing key, activated when created if it starts active. */
export function key_row(input: NewKey): KeyRow {
  const created = input.created_at ?? now_seconds();
  return {
    kid: input.kid,
    alg: input.alg,
    use: input.use ?? "sig",
    private_jwk: input.private_jwk,
    public_jwk: input.public_jwk,
    status: input.status,
    created_at: created,
    activated_at: input.activated_at ?? (input.status === "active" ? created : null),
    retire_at: input.retire_at ?? null,
    updated_at: created,
  };
}

/**
 * The key row after a status change: activation time is stamped when a key first becomes active,
 * unless the caller gives the times explicitly.
 */
export function key_status_change(
  current: KeyRow,
  status: KeyStatus,
  times: { activated_at?: UnixSeconds | null; retire_at?: UnixSeconds | null; now?: UnixSeconds } = {},
): KeyRow {
  const now = times.now ?? now_seconds();
  const activated_at = times.activated_at !== undefined ? times.activated_at : status === "active" && current.activated_at === null ? now : current.activated_at;
  return {
    ...current,
    status,
    activated_at: activated_at,
    retire_at: times.retire_at !== undefined ? times.retire_at : current.retire_at,
    updated_at: now,
  };
}
