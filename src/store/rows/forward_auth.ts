/**
 * Rows of `protected_apps` (forward authentication, oidc/forward_auth/): the column spec (codec.ts
 * encodes and decodes by it) and the builder that completes a new row, shared by both adapters.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { ForwardAuthCode, NewProtectedApp, ProtectedAppRow } from "../types.ts";

/** The columns of `protected_apps`. */
export const protected_app_spec: TableSpec<ProtectedAppRow> = {
  name: "text",
  url: "text",
  host: "text",
  path: "text",
  allowed_groups: "json",
  require_2fa: "bool",
  rules: "json",
  created_at: "int",
  updated_at: "int",
};

/** The complete row of a new application: any signed-in user, no second factor, no path rules unless given. */
export function protected_app_row(input: NewProtectedApp): ProtectedAppRow {
  const created = input.created_at ?? now_seconds();
  return {
    name: input.name,
    url: input.url,
    host: input.host,
    path: input.path,
    allowed_groups: input.allowed_groups ?? [],
    require_2fa: input.require_2fa ?? false,
    rules: input.rules ?? [],
    created_at: created,
    updated_at: input.updated_at ?? created,
  };
}

/** The applications of one host in the order list_protected_apps_for_host gives them: longest path first, then by path. */
export function longest_first(apps: ProtectedAppRow[]): ProtectedAppRow[] {
  return apps.sort((a, b) => b.path.length - a.path.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A `forward_auth_codes` row as either driver reads it (PostgreSQL's BIGINT may come back as a string). */
export function forward_auth_code(raw: Record<string, unknown> | ForwardAuthCode): ForwardAuthCode {
  const row = raw as Record<string, unknown>;
  return {
    code_hash: String(row.code_hash),
    session_id_hash: String(row.session_id_hash),
    host: String(row.host),
    target: String(row.target),
    expires_at: Number(row.expires_at),
    created_at: Number(row.created_at),
  };
}
