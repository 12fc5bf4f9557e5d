/**
 * The conversions between rows of the interface and what each database stores, driven by each
 * table's column spec (rows/<area>.ts). SQLite keeps JSON as text and booleans as 0/1;
 * PostgreSQL keeps jsonb, boolean and bigint (which both drivers return as a string). Decoding is
 * an allow-list: columns that are not in the spec (such as users.username_key) never reach a row.
 */
/** How a column is stored and read back. */
export type ColumnKind = "text" | "int" | "bool" | "json";
/** A table's columns: a kind for every field of its row, in column order (rows/<area>.ts). */
export type TableSpec<Row> = { readonly [K in keyof Row]-?: ColumnKind };

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

/** Bind values for the SQLite driver's named parameters (`$column`, sqlite/driver.ts). */
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
 * Values for the PostgreSQL driver's `sql(object)` helper (postgres/driver.ts). JSON stays a JS
 * value: the driver encodes parameters the server types as jsonb, so a pre-stringified value
 * would be stored as a JSON string.
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
