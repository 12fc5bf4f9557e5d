/**
 * Rows of `grants`: the column spec (codec.ts encodes and decodes by it) and the builder of the
 * row an upsert leaves, shared by both adapters so they store exactly the same values.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { GrantRow, UnixSeconds } from "../types.ts";

/** The columns of `grants`. */
export const grant_spec: TableSpec<GrantRow> = {
  user_id: "text",
  client_id: "text",
  scopes: "json",
  claims: "json",
  created_at: "int",
  updated_at: "int",
};

/** Set union keeping the existing order first (grants only ever gain scopes by upsert). */
export function merge_scopes(existing: readonly string[], added: readonly string[]): string[] {
  return [...new Set([...existing, ...added])];
}

/** The row after an upsert onto `existing` (null: a new grant): scopes merged, claims replaced when given. */
export function grant_row(existing: GrantRow | null, input: { user_id: string; client_id: string; scopes: string[]; claims?: GrantRow["claims"]; now?: UnixSeconds }): GrantRow {
  const now = input.now ?? now_seconds();
  return {
    user_id: input.user_id,
    client_id: input.client_id,
    scopes: merge_scopes(existing?.scopes ?? [], input.scopes),
    claims: input.claims !== undefined ? input.claims : (existing?.claims ?? null),
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
}
