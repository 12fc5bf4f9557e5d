/**
 * Rows of `clients`: the column spec (codec.ts encodes and decodes by it) and the builder that
 * completes a new row, shared by both adapters so they store exactly the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { ClientRow, NewClient } from "../types.ts";

/** The columns of `clients`. */
export const client_spec: TableSpec<ClientRow> = {
  client_id: "text",
  client_secret_hash: "text",
  client_secret_expires_at: "int",
  client_id_issued_at: "int",
  registration_access_token_hash: "text",
  metadata: "json",
  created_at: "int",
  updated_at: "int",
  anonymous: "bool",
  first_used_at: "int",
  version: "int",
  client_secret_created_at: "int",
  client_secret_used_at: "int",
  previous_secret_hash: "text",
  previous_secret_expires_at: "int",
  previous_secret_created_at: "int",
  previous_secret_used_at: "int",
};

/** The complete row of a new client: a secret that never expires (0), issued and made when created, no previous secret, not anonymous, never used. */
export function client_row(input: NewClient): ClientRow {
  const now = now_seconds();
  const created = input.created_at ?? now;
  return {
    client_id: input.client_id,
    client_secret_hash: input.client_secret_hash ?? null,
    client_secret_expires_at: input.client_secret_expires_at ?? 0,
    client_id_issued_at: input.client_id_issued_at ?? created,
    registration_access_token_hash: input.registration_access_token_hash ?? null,
    metadata: input.metadata,
    created_at: created,
    updated_at: input.updated_at ?? created,
    anonymous: input.anonymous ?? false,
    first_used_at: input.first_used_at ?? null,
    version: 0,
    client_secret_created_at: input.client_secret_created_at ?? (input.client_secret_hash ? created : null),
    client_secret_used_at: input.client_secret_used_at ?? null,
    previous_secret_hash: input.previous_secret_hash ?? null,
    previous_secret_expires_at: input.previous_secret_expires_at ?? null,
    previous_secret_created_at: input.previous_secret_created_at ?? null,
    previous_secret_used_at: input.previous_secret_used_at ?? null,
  };
}
