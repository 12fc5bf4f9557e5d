/**
 * Rows of `resource_servers` (RFC 8707, RFC 9068): the column spec (codec.ts encodes and decodes
 * by it) and the builder that completes a new row, shared by both adapters so they store exactly
 * the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { NewResourceServer, ResourceServerRow } from "../types.ts";

/** The columns of `resource_servers`. */
export const resource_server_spec: TableSpec<ResourceServerRow> = {
  uri: "text",
  scopes: "json",
  access_token_format: "text",
  access_token_ttl: "int",
  created_at: "int",
  updated_at: "int",
};

/** The complete row of a new resource server: opaque access tokens with the default lifetime unless given. */
export function resource_server_row(input: NewResourceServer): ResourceServerRow {
  const created = input.created_at ?? now_seconds();
  return {
    uri: input.uri,
    scopes: input.scopes,
    access_token_format: input.access_token_format ?? "opaque",
    access_token_ttl: input.access_token_ttl ?? null,
    created_at: created,
    updated_at: input.updated_at ?? created,
  };
}
