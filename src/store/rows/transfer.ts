/**
 * The tables `idp export` writes and `idp import` reads (app/transfer/), one entry each, in the
 * order an import inserts them (a table after the tables it refers to). An entry says which
 * area of the file holds the table, its columns (the spec the store decodes and encodes by),
 * the columns an adapter derives (lookup keys that never reach a row), the keys that make two
 * rows the same (an import skips a row whose key the database already has), and the tables its
 * columns refer to. Another table is one more entry here.
 *
 * Not exported, on purpose: what expires on its own or is tied to a running session (sessions,
 * session_clients, interactions, codes, tokens, grants, revoked_grants, device_authorizations,
 * pushed_requests, upstream_states, webauthn_challenges, user_tokens, forward_auth_tokens,
 * protected_app_access, initial_access_tokens), what the server keeps for itself (counters,
 * used_jtis, job_runs, mail_outbox, webhook_deliveries, store_meta) and the audit log, which
 * stays with the database it records. Webhook subscriptions are exported; their queued deliveries
 * are not (like the mail queue: a target server sends its own). Signing keys only when asked (`--include-keys`): they are the issuer's
 * identity.
 */
import type { ColumnKind, TableSpec } from "../codec.ts";
import { attribute_definition_spec, attribute_key } from "./attributes.ts";
import { group_name_key } from "../group_names.ts";
import { username_key } from "../usernames.ts";
import { client_spec } from "./clients.ts";
import { federated_identity_spec, upstream_spec } from "./federation.ts";
import { protected_app_spec } from "./forward_auth.ts";
import { group_spec } from "./groups.ts";
import { key_spec } from "./keys.ts";
import { ldap_service_account_spec, service_account_key } from "./ldap.ts";
import { passkey_spec } from "./passkeys.ts";
import { resource_server_spec } from "./resource_servers.ts";
import { saml_service_provider_spec } from "./saml.ts";
import type { TransferRow } from "../types/transfer.ts";
import { user_spec } from "./users.ts";
import { webhook_spec } from "./webhooks.ts";

export type { TransferRow };

export type TransferTable = {
  /** The area of the file the table is in (`areas.<area>.<table>`). */
  area: string;
  table: string;
  columns: Readonly<Record<string, ColumnKind>>;
  /** The primary key: rows are exported in its order. */
  primary: readonly string[];
  /** Columns the adapters store beside a row's own, computed from it (a lookup key). */
  derived?: Readonly<Record<string, (row: TransferRow) => string>>;
  /** What makes two rows the same, besides the primary key: each gives a label and a value, or null. */
  keys?: readonly ((row: TransferRow) => string | null)[];
  /** Columns that name a row of another table (a foreign key): a row whose parent was skipped is skipped. */
  parents?: Readonly<Record<string, readonly string[]>>;
  /** Exported only when asked for (`--include-keys`). */
  optional?: boolean;
};

const spec = <Row>(columns: TableSpec<Row>) => columns as Readonly<Record<string, ColumnKind>>;
const text = (row: TransferRow, column: string) => String(row[column]);

/** The exported tables, parents before children. */
export const TRANSFER_TABLES: readonly TransferTable[] = [
  {
    area: "users",
    table: "users",
    columns: spec(user_spec),
    primary: ["id"],
    derived: { username_key: (row) => username_key(text(row, "username")) },
    keys: [(row) => `username ${username_key(text(row, "username"))}`, (row) => (typeof row.email === "string" ? `email ${row.email.toLowerCase()}` : null)],
  },
  {
    area: "users",
    table: "user_recovery_codes",
    columns: { user_id: "text", code_hash: "text", created_at: "int", used_at: "int" },
    primary: ["user_id", "code_hash"],
    parents: { user_id: ["users"] },
  },
  {
    area: "users",
    table: "passkeys",
    columns: spec(passkey_spec),
    primary: ["id"],
    keys: [(row) => `credential ${text(row, "credential_id")}`],
    parents: { user_id: ["users"] },
  },
  {
    area: "users",
    table: "federated_identities",
    columns: spec(federated_identity_spec),
    primary: ["upstream", "subject"],
    parents: { user_id: ["users"] },
  },
  {
    area: "groups",
    table: "groups",
    columns: spec(group_spec),
    primary: ["id"],
    derived: { name_key: (row) => group_name_key(text(row, "name")) },
    keys: [(row) => `group ${group_name_key(text(row, "name"))}`],
  },
  {
    area: "groups",
    table: "group_members",
    columns: { group_id: "text", user_id: "text", created_at: "int", upstream: "text" },
    primary: ["group_id", "user_id"],
    parents: { group_id: ["groups"], user_id: ["users"] },
  },
  {
    area: "clients",
    table: "clients",
    columns: spec(client_spec),
    primary: ["client_id"],
    keys: [(row) => (typeof row.registration_access_token_hash === "string" ? `registration token ${row.registration_access_token_hash}` : null)],
  },
  { area: "upstreams", table: "upstreams", columns: spec(upstream_spec), primary: ["name"] },
  { area: "resource_servers", table: "resource_servers", columns: spec(resource_server_spec), primary: ["uri"] },
  { area: "saml", table: "saml_service_providers", columns: spec(saml_service_provider_spec), primary: ["entity_id"] },
  {
    area: "apps",
    table: "protected_apps",
    columns: spec(protected_app_spec),
    primary: ["name"],
    keys: [(row) => `url ${text(row, "host")}${text(row, "path")}`],
  },
  {
    area: "ldap",
    table: "ldap_service_accounts",
    columns: spec(ldap_service_account_spec),
    primary: ["name"],
    derived: { name_key: (row) => service_account_key(text(row, "name")) },
    keys: [(row) => `service account ${service_account_key(text(row, "name"))}`],
  },
  {
    area: "ldap",
    table: "ldap_posix_ids",
    columns: { owner_id: "text", number: "int", created_at: "int" },
    primary: ["owner_id"],
    keys: [(row) => `number ${text(row, "number")}`],
    parents: { owner_id: ["users", "groups"] },
  },
  {
    area: "attributes",
    table: "user_attribute_definitions",
    // name_key is in the file so that values can name their definition; a file whose name_key is
    // not the name's is refused (app/transfer/format.ts), and the import writes the derived one.
    columns: { name_key: "text", ...spec(attribute_definition_spec) },
    primary: ["name_key"],
    derived: { name_key: (row) => attribute_key(text(row, "name")) },
    keys: [(row) => `claim ${text(row, "claim").toLowerCase()}`],
  },
  {
    area: "attributes",
    table: "user_attribute_values",
    columns: { user_id: "text", name_key: "text", value: "text", updated_at: "int" },
    primary: ["user_id", "name_key"],
    parents: { user_id: ["users"], name_key: ["user_attribute_definitions"] },
  },
  { area: "webhooks", table: "webhooks", columns: spec(webhook_spec), primary: ["id"] },
  { area: "keys", table: "signing_keys", columns: spec(key_spec), primary: ["kid"], optional: true },
];

/** The entry of `table`; throws for a table that is not exported (a caller's mistake). */
export function transfer_table(table: string): TransferTable {
  const found = TRANSFER_TABLES.find((t) => t.table === table);
  if (found === undefined) throw new Error(`${table} is not an exported table`);
  return found;
}

/** Sorts rows by the table's primary key, by code unit, so both databases export the same order. */
export function sort_rows(entry: TransferTable, rows: TransferRow[]): TransferRow[] {
  const key = (row: TransferRow) => entry.primary.map((column) => String(row[column])).join("\u0000");
  return rows.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

/** The spec an adapter writes a table's rows by: its columns, then the derived ones (text). */
export function stored_spec(entry: TransferTable): Readonly<Record<string, ColumnKind>> {
  const out: Record<string, ColumnKind> = { ...entry.columns };
  for (const column of Object.keys(entry.derived ?? {})) out[column] = "text";
  return out;
}

/** A row with its derived columns, as an adapter writes it. */
export function stored_row(entry: TransferTable, row: TransferRow): TransferRow {
  const out: TransferRow = {};
  for (const column of Object.keys(entry.columns)) out[column] = row[column];
  for (const [column, derive] of Object.entries(entry.derived ?? {})) out[column] = derive(row);
  return out;
}
