/**
 * Users from any other provider, as a table (`--from csv`): CSV with this header (RFC 4180:
 * comma-separated, fields with a comma, quote or line break in double quotes, `""` for a quote),
 * or the same as a JSON array of objects with these members:
 *
 *     username,email,email_verified,name,given_name,family_name,password_hash,groups
 *
 * Only `username` is required; the columns may come in any order and unknown ones are refused
 * (a typo would otherwise drop a field). `email_verified` is true/false (1/0, yes/no, or empty:
 * false). `password_hash` is a PHC string or modular crypt bcrypt (crypto/foreign_hashes.ts) or
 * empty (no password). `groups` is group names separated by `;` (a JSON array in JSON).
 */
import { add_user, empty_plan, unreadable, type ImportPlan } from "./plan.ts";

export const TABLE_COLUMNS = ["username", "email", "email_verified", "name", "given_name", "family_name", "password_hash", "groups"] as const;

/** CSV records with the line each starts on; a quote left open is an error naming its line. */
export function parse_csv(text: string): { records: { line: number; fields: string[] }[] } | { error: string } {
  const records: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let start = 1;
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte order mark, as spreadsheets write
  const end_record = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === "")) records.push({ line: start, fields });
    fields = [];
    field = "";
  };
  for (; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (char === "\n") line++;
        field += char;
      }
    } else if (char === '"' && field === "") quoted = true;
    else if (char === ",") {
      fields.push(field);
      field = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      end_record();
      line++;
      start = line;
    } else field += char;
  }
  if (quoted) return { error: `line ${start}: a quoted field is not closed` };
  if (field !== "" || fields.length > 0) end_record();
  return { records };
}

type Row = Partial<Record<(typeof TABLE_COLUMNS)[number], unknown>>;

function add_row(plan: ImportPlan, seen: Set<string>, at: string, row: Row): void {
  const groups = Array.isArray(row.groups) ? row.groups : typeof row.groups === "string" ? row.groups.split(";") : [];
  const names = groups.map((group) => (typeof group === "string" ? group.trim() : "")).filter((group) => group !== "");
  add_user(plan, seen, at, { ...row, username: row.username, groups: names });
}

function unknown_columns(columns: readonly string[]): string[] {
  return columns.filter((column) => !(TABLE_COLUMNS as readonly string[]).includes(column));
}

/** Reads the CSV table (already within MAX_IMPORT_BYTES). */
export function read_csv(text: string): ImportPlan {
  const parsed = parse_csv(text);
  if ("error" in parsed) return unreadable("csv", parsed.error);
  const [header, ...rows] = parsed.records;
  if (header === undefined) return unreadable("csv", "empty file");
  const columns = header.fields.map((name) => name.trim());
  const unknown = unknown_columns(columns);
  if (unknown.length > 0 || !columns.includes("username")) {
    return unreadable(
      "csv",
      `line ${header.line}: the header must name columns of ${TABLE_COLUMNS.join(",")}, username among them${unknown.length > 0 ? ` (unknown: ${unknown.join(", ")})` : ""}`,
    );
  }
  const plan = empty_plan("csv");
  const seen = new Set<string>();
  for (const record of rows) {
    if (record.fields.length !== columns.length) {
      plan.errors.push({ at: `line ${record.line}`, message: `${record.fields.length} fields, the header has ${columns.length}` });
      continue;
    }
    const row: Row = {};
    for (const [i, column] of columns.entries()) row[column as keyof Row] = record.fields[i];
    add_row(plan, seen, `line ${record.line}`, row);
  }
  return plan;
}

/** Reads the same table as a JSON array of objects. */
export function read_json_table(text: string): ImportPlan {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (error) {
    return unreadable("csv", `not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(rows)) return unreadable("csv", "a JSON table is an array of objects");
  const plan = empty_plan("csv");
  const seen = new Set<string>();
  for (const [i, row] of (rows as unknown[]).entries()) {
    const at = `[${i}]`;
    if (row === null || typeof row !== "object" || Array.isArray(row)) {
      plan.errors.push({ at, message: "not an object" });
      continue;
    }
    const unknown = unknown_columns(Object.keys(row));
    if (unknown.length > 0) plan.errors.push({ at, message: `unknown members ${unknown.join(", ")}` });
    else add_row(plan, seen, at, row as Row);
  }
  return plan;
}

/** JSON when the text starts with `[`, CSV otherwise. */
export function read_table(text: string): ImportPlan {
  return /^\uFEFF?\s*\[/.test(text) ? read_json_table(text) : read_csv(text);
}
