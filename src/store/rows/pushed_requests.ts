/**
 * Rows of `pushed_requests` (RFC 9126): the column spec (codec.ts encodes and decodes by it) and
 * the builder that completes a new row, shared by both adapters.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { PushedRequestRow, UnixSeconds } from "../types.ts";

/** The columns of `pushed_requests`. */
export const pushed_request_spec: TableSpec<PushedRequestRow> = {
  request_uri_hash: "text",
  client_id: "text",
  params: "json",
  created_at: "int",
  expires_at: "int",
};

/** The request with `created_at` filled in. */
export function pushed_request_row(input: Omit<PushedRequestRow, "created_at"> & { created_at?: UnixSeconds }): PushedRequestRow {
  return { ...input, created_at: input.created_at ?? now_seconds() };
}
