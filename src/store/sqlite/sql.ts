/** SQL text for the SQLite driver's statements (driver.ts), built from a fixed column list (at open, never from input). */
export function insert_sql(table: string, cols: readonly string[]): string {
  return `INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((c) => `$${c}`).join(", ")})`;
}

/** `UPDATE table SET every non-key column WHERE keys` with `$column` parameters. */
export function update_sql(table: string, cols: readonly string[], keys: readonly string[]): string {
  const set = cols.filter((c) => !keys.includes(c)).map((c) => `${c} = $${c}`);
  return `UPDATE ${table} SET ${set.join(", ")} WHERE ${keys.map((k) => `${k} = $${k}`).join(" AND ")}`;
}

/** SQLite's LIMIT takes -1 for "no limit". */
export function limit_of(options?: { limit?: number; offset?: number }): { limit: number; offset: number } {
  return { limit: options?.limit ?? -1, offset: options?.offset ?? 0 };
}
