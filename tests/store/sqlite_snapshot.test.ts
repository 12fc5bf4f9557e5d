/**
 * The SQLite drivers' `snapshot` (src/store/sqlite/driver.ts), which backups copy the database
 * with: VACUUM INTO on bun:sqlite, the online backup API on node:sqlite (Deno disables the ATTACH
 * that VACUUM INTO needs). Each gives the committed rows only, while another connection holds
 * uncommitted ones, into the file it was given (its mode kept), as a single file without a WAL.
 * The runtime's driver, and node:sqlite also under Bun, which provides it too.
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open_sqlite_database } from "../../src/store/sqlite/connection.ts";
import type { SqliteDriver } from "../../src/store/sqlite/driver.ts";
import { load_sqlite_driver } from "../../src/store/sqlite/load_driver.ts";
import { NODE_SQLITE } from "../../src/store/sqlite/node_sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "idp-sqlite-snapshot-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const runtime_driver = await load_sqlite_driver();
const drivers: SqliteDriver[] = runtime_driver === NODE_SQLITE ? [NODE_SQLITE] : [runtime_driver, NODE_SQLITE];

describe.each(drivers.map((driver) => [driver.name, driver] as const))("%s snapshot", (name, driver) => {
  test("the committed rows only, into the file given (its mode kept), without a WAL", async () => {
    const source = join(dir, `${name.replace(":", "_")}.db`);
    const db = open_sqlite_database(source, 1000, driver);
    db.exec("CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('committed')");
    const writer = open_sqlite_database(source, 1000, driver);
    writer.exec("BEGIN IMMEDIATE; INSERT INTO t VALUES ('uncommitted')");
    const out = join(dir, `${name.replace(":", "_")}.copy`);
    closeSync(openSync(out, "wx", 0o600));
    try {
      await driver.snapshot(db, out);
    } finally {
      writer.exec("ROLLBACK");
      writer.close(true);
      db.close(true);
    }
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const copy = driver.open(out, { readonly: true });
    try {
      expect(copy.query("SELECT v FROM t").all()).toEqual([{ v: "committed" }]);
      expect(copy.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "delete" });
    } finally {
      copy.close(true);
    }
    expect([existsSync(`${out}-wal`), existsSync(`${out}-shm`)]).toEqual([false, false]);
  });
});
