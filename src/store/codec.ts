/**
 * Column specs of every table and the conversions between rows of the interface and what each
 * database stores. SQLite keeps JSON as text and booleans as 0/1; PostgreSQL keeps jsonb,
 * boolean and bigint (which Bun.SQL returns as a string). Decoding is an allow-list: columns
 * that are not in the spec (such as users.username_key) never reach a row.
 */
import type {
  AuditEvent,
  ClientRow,
  CodeRow,
  DeviceAuthorizationRow,
  GrantRow,
  InitialAccessTokenRow,
  InteractionRow,
  KeyRow,
  MailRow,
  MailSummary,
  PushedRequestRow,
  ResourceServerRow,
  SessionRow,
  TokenRow,
  UserRow,
  UserTokenRow,
} from "./types.ts";

export type ColumnKind = "text" | "int" | "bool" | "json";
export type TableSpec<Row> = { readonly [K in keyof Row]-?: ColumnKind };

export const user_spec: TableSpec<UserRow> = {
  id: "text",
  username: "text",
  password_hash: "text",
  name: "text",
  given_name: "text",
  family_name: "text",
  picture: "text",
  email: "text",
  email_verified: "bool",
  phone_number: "text",
  phone_number_verified: "bool",
  address: "json",
  totp_secret: "text",
  totp_enabled_at: "int",
  status: "text",
  locale: "text",
  created_at: "int",
  updated_at: "int",
};

export const client_spec: TableSpec<ClientRow> = {
  client_id: "text",
  client_secret_hash: "text",
  client_secret_expires_at: "int",
  client_id_issued_at: "int",
  registration_access_token_hash: "text",
  metadata: "json",
  created_at: "int",
  updated_at: "int",
};

export const session_spec: TableSpec<SessionRow> = {
  id_hash: "text",
  user_id: "text",
  auth_time: "int",
  amr: "json",
  acr: "text",
  created_at: "int",
  expires_at: "int",
  last_seen_at: "int",
  user_agent: "text",
  ip: "text",
};

export const interaction_spec: TableSpec<InteractionRow> = {
  id: "text",
  params: "json",
  session_id_hash: "text",
  result: "json",
  created_at: "int",
  expires_at: "int",
};

export const grant_spec: TableSpec<GrantRow> = {
  user_id: "text",
  client_id: "text",
  scopes: "json",
  claims: "json",
  created_at: "int",
  updated_at: "int",
};

export const code_spec: TableSpec<CodeRow> = {
  code_hash: "text",
  client_id: "text",
  user_id: "text",
  session_id_hash: "text",
  redirect_uri: "text",
  scope: "text",
  nonce: "text",
  code_challenge: "text",
  code_challenge_method: "text",
  auth_time: "int",
  acr: "text",
  amr: "json",
  claims: "json",
  grant_id: "text",
  created_at: "int",
  expires_at: "int",
  consumed_at: "int",
  dpop_jkt: "text",
  resources: "json",
};

export const token_spec: TableSpec<TokenRow> = {
  token_hash: "text",
  kind: "text",
  client_id: "text",
  user_id: "text",
  scope: "text",
  grant_id: "text",
  family_id: "text",
  session_id_hash: "text",
  auth_time: "int",
  acr: "text",
  amr: "json",
  claims: "json",
  nonce: "text",
  created_at: "int",
  expires_at: "int",
  revoked_at: "int",
  rotated_at: "int",
  jkt: "text",
  resources: "json",
  act: "json",
};

export const resource_server_spec: TableSpec<ResourceServerRow> = {
  uri: "text",
  scopes: "json",
  access_token_format: "text",
  access_token_ttl: "int",
  created_at: "int",
  updated_at: "int",
};

export const pushed_request_spec: TableSpec<PushedRequestRow> = {
  request_uri_hash: "text",
  client_id: "text",
  params: "json",
  created_at: "int",
  expires_at: "int",
};

export const device_authorization_spec: TableSpec<DeviceAuthorizationRow> = {
  device_code_hash: "text",
  user_code_hash: "text",
  client_id: "text",
  scope: "text",
  claims: "json",
  status: "text",
  user_id: "text",
  session_id_hash: "text",
  auth_time: "int",
  amr: "json",
  acr: "text",
  grant_id: "text",
  poll_interval: "int",
  last_polled_at: "int",
  created_at: "int",
  expires_at: "int",
};

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

export const initial_access_token_spec: TableSpec<InitialAccessTokenRow> = {
  id: "text",
  token_hash: "text",
  created_at: "int",
  expires_at: "int",
  uses_left: "int",
};

export const user_token_spec: TableSpec<UserTokenRow> = {
  token_hash: "text",
  user_id: "text",
  purpose: "text",
  email: "text",
  created_at: "int",
  expires_at: "int",
};

export const audit_spec: TableSpec<AuditEvent> = {
  id: "int",
  at: "int",
  type: "text",
  user_id: "text",
  client_id: "text",
  ip: "text",
  outcome: "text",
  details: "json",
};

export const mail_spec: TableSpec<MailRow> = {
  id: "text",
  recipient: "text",
  template: "text",
  subject: "text",
  text: "text",
  html: "text",
  status: "text",
  attempts: "int",
  next_attempt_at: "int",
  locked_until: "int",
  give_up_at: "int",
  last_error: "text",
  created_at: "int",
  sent_at: "int",
};

/** The outbox without the bodies (listings): they may hold single-use links. */
export const mail_summary_spec: TableSpec<MailSummary> = (({ text: _text, html: _html, ...rest }) => rest)(mail_spec);

/** The column names of a spec, in declaration order. */
export function columns<Row>(spec: TableSpec<Row>): string[] {
  return Object.keys(spec);
}

type Field = readonly [name: string, kind: ColumnKind];
const field_cache = new WeakMap<object, readonly Field[]>();

// Every row read or written walks its spec: built once per spec, not an Object.entries a call.
function fields_of<Row>(spec: TableSpec<Row>): readonly Field[] {
  let fields = field_cache.get(spec);
  if (!fields) {
    fields = Object.entries(spec) as Field[];
    field_cache.set(spec, fields);
  }
  return fields;
}

function decode_value(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return kind === "bool" ? false : null;
  switch (kind) {
    case "text":
      return String(value);
    case "int":
      return Number(value);
    case "bool":
      return value === true || value === 1 || value === "1" || value === "t";
    case "json":
      // Our JSON columns always hold objects or arrays, so a string means SQLite's text form.
      if (typeof value !== "string") return value;
      return value === "[]" ? [] : JSON.parse(value);
  }
}

/** Builds a typed row from a raw database row, keeping only the spec's columns. */
export function decode<Row>(spec: TableSpec<Row>, raw: unknown): Row {
  const source = raw as Record<string, unknown>;
  const row: Record<string, unknown> = {};
  for (const [name, kind] of fields_of(spec)) {
    row[name] = decode_value(kind, source[name]);
  }
  return row as Row;
}

export function decode_or_null<Row>(spec: TableSpec<Row>, raw: unknown): Row | null {
  return raw === null || raw === undefined ? null : decode(spec, raw);
}

export type SqliteValue = string | number | null;

/** Bind values for bun:sqlite named parameters (`$column`). */
export function encode_sqlite<Row>(spec: TableSpec<Row>, row: Partial<Row>): Record<string, SqliteValue> {
  const out: Record<string, SqliteValue> = {};
  const source = row as Record<string, unknown>;
  for (const [name, kind] of fields_of(spec)) {
    const value = source[name];
    if (value === undefined || value === null) out[name] = kind === "bool" ? 0 : null;
    else if (kind === "json") out[name] = Array.isArray(value) && value.length === 0 ? "[]" : JSON.stringify(value);
    else if (kind === "bool") out[name] = value ? 1 : 0;
    else out[name] = value as string | number;
  }
  return out;
}

export type PgValue = string | number | boolean | null | object;

/**
 * Values for Bun.SQL's `sql(object)` helper. JSON stays a JS value: Bun encodes parameters the
 * server types as jsonb, so a pre-stringified value would be stored as a JSON string.
 */
export function encode_postgres<Row>(spec: TableSpec<Row>, row: Partial<Row>): Record<string, PgValue> {
  const out: Record<string, PgValue> = {};
  const source = row as Record<string, unknown>;
  for (const [name, kind] of fields_of(spec)) {
    if (!(name in source)) continue;
    const value = source[name];
    if (value === undefined) continue;
    if (value === null) out[name] = kind === "bool" ? false : null;
    else if (kind === "bool") out[name] = Boolean(value);
    else out[name] = value as PgValue;
  }
  return out;
}

/** Keeps the defined fields of a patch that the spec knows and that may change. */
export function pick_patch<Row>(spec: TableSpec<Row>, patch: NoInfer<Partial<Row>>, immutable: NoInfer<readonly (keyof Row & string)[]>): Partial<Row> {
  const out: Partial<Row> = {};
  for (const name of Object.keys(spec) as (keyof Row & string)[]) {
    if (immutable.includes(name)) continue;
    const value = patch[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
