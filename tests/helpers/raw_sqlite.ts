/**
 * A SQLite file opened beside the store, to build an older database, peek at what was written or
 * hold a lock: bun:sqlite on Bun, node:sqlite on Deno, behind the few calls the tests make. Rows
 * come back as plain objects, `get` gives null when there is no row (as bun:sqlite does).
 */
import { RUNTIME } from "../../src/platform/which.ts";

type Param = string | number | bigint | null | Uint8Array;

export type RawSqlite = {
  /** Runs one or more statements, no parameters. */
  exec(sql: string): void;
  /** Runs one statement with its parameters. */
  run(sql: string, ...params: Param[]): void;
  get<T>(sql: string, ...params: Param[]): T | null;
  all<T>(sql: string, ...params: Param[]): T[];
  close(): void;
};

type Driver = (path: string, readonly: boolean) => RawSqlite;

async function bun_driver(): Promise<Driver> {
  // Not a static import: Deno cannot resolve "bun:sqlite".
  const { Database } = await import("bun:sqlite");
  return (path, readonly) => {
    const db = readonly ? new Database(path, { readonly: true }) : new Database(path);
    return {
      exec: (sql) => void db.exec(sql),
      run: (sql, ...params) => void db.query(sql).run(...params),
      get: <T>(sql: string, ...params: Param[]) => (db.query(sql).get(...params) as T | null) ?? null,
      all: <T>(sql: string, ...params: Param[]) => db.query(sql).all(...params) as T[],
      close: () => db.close(),
    };
  };
}

async function node_driver(): Promise<Driver> {
  const { DatabaseSync } = await import("node:sqlite");
  const plain = <T>(row: unknown): T => ({ ...(row as object) }) as T;
  return (path, readonly) => {
    const db = new DatabaseSync(path, { readOnly: readonly });
    return {
      exec: (sql) => db.exec(sql),
      run: (sql, ...params) => void db.prepare(sql).run(...params),
      get: <T>(sql: string, ...params: Param[]) => {
        const row = db.prepare(sql).get(...params);
        return row === undefined ? null : plain<T>(row);
      },
      all: <T>(sql: string, ...params: Param[]) =>
        db
          .prepare(sql)
          .all(...params)
          .map((row) => plain<T>(row)),
      close: () => db.close(),
    };
  };
}

const open = RUNTIME === "bun" ? await bun_driver() : await node_driver();

/** Opens `path` (":memory:" for a database of its own). */
export function open_raw_sqlite(path: string, options: { readonly?: boolean } = {}): RawSqlite {
  return open(path, options.readonly ?? false);
}
