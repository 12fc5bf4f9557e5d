/**
 * Printing for the CLI: one JSON document on stdout with `--json`, aligned human text otherwise.
 * Every writer receives whole lines ending in "\n".
 */

export type Writer = (text: string) => void;

/** A value printable as a cell: null/undefined show as "-". */
export type Cell = string | number | boolean | null | undefined;

/** One JSON document, pretty-printed, on its own. */
export function write_json(write: Writer, value: unknown): void {
  write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Unix seconds → ISO 8601 (UTC), or "-" when absent. */
export function format_time(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "-";
  return new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
}

function cell(value: Cell): string {
  if (value === null || value === undefined || value === "") return "-";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

/** A table with a header row; columns are padded to their widest cell. */
export function write_table(write: Writer, headers: readonly string[], rows: readonly (readonly Cell[])[]): void {
  const text = rows.map((row) => row.map(cell));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  write(`${line(headers.map((h) => h.toUpperCase()))}\n`);
  for (const row of text) write(`${line(row)}\n`);
}

/** `key: value` lines, keys aligned; arrays are joined with spaces, objects (in arrays too) shown as JSON. */
export function write_record(write: Writer, record: Record<string, unknown>): void {
  const keys = Object.keys(record);
  const width = Math.max(0, ...keys.map((k) => k.length));
  for (const key of keys) {
    const value = record[key];
    let shown: string;
    if (Array.isArray(value)) shown = value.length ? value.map((item) => (item !== null && typeof item === "object" ? JSON.stringify(item) : String(item))).join(" ") : "-";
    else if (value !== null && typeof value === "object") shown = JSON.stringify(value);
    else shown = cell(value as Cell);
    write(`${`${key}:`.padEnd(width + 2)}${shown}\n`);
  }
}

/** A one-line notice that a secret is shown only this once. */
export function secret_notice(write: Writer, what: string): void {
  write(`\nStore the ${what} now: it is shown only once and cannot be recovered.\n`);
}
