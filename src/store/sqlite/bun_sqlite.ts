/**
 * The SQLite driver on Bun: bun:sqlite itself. Its `Database` meets the contract of driver.ts
 * as it is (the contract is named after it), so the adapter's statements are bun:sqlite's own,
 * with nothing in between: `strict` binds `$name` parameters from bare keys and refuses a
 * missing one; `query` caches statements by text.
 */
import { Database } from "bun:sqlite";
import type { SqliteDatabase, SqliteDriver } from "./driver.ts";

export const BUN_SQLITE: SqliteDriver = {
  name: "bun:sqlite",
  open(path, options = {}): SqliteDatabase {
    return options.readonly === true ? new Database(path, { readonly: true, strict: true }) : new Database(path, { create: true, strict: true });
  },
  // SQLite's "VACUUM INTO": one read transaction, the copy written compact and without a WAL.
  async snapshot(db, out) {
    db.prepare("VACUUM INTO ?1").run(out);
  },
};
