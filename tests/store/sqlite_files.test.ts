/**
 * The SQLite files are the owner's only (store/sqlite/files.ts): they hold the signing keys, so
 * another local user must not read them, whatever the umask the process was started with.
 */
import { afterAll, afterEach, describe, expect, test } from "../helpers/test_api.ts";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, open_store } from "../../src/store/open.ts";
import { sqlite_file_warnings } from "../../src/store/sqlite/files.ts";
import { seed_user } from "./fixtures.ts";

const mode_of = (path: string) => statSync(path).mode & 0o777;
const root = mkdtempSync(join(tmpdir(), "idp-sqlite-files-"));
const umask = process.umask();
afterEach(() => void process.umask(umask));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("sqlite files at rest", () => {
  test("under umask 022 the directory we create is 0700 and the database, WAL and SHM files are 0600", async () => {
    process.umask(0o022);
    const dir = join(root, "fresh", "data");
    const path = join(dir, "idp.db");
    const store = await open_store(`sqlite:${path}`);
    try {
      await seed_user(store);
      expect(existsSync(`${path}-wal`)).toBe(true);
      expect(existsSync(`${path}-shm`)).toBe(true);
      expect({ dir: mode_of(dir), db: mode_of(path), wal: mode_of(`${path}-wal`), shm: mode_of(`${path}-shm`) }).toEqual({ dir: 0o700, db: 0o600, wal: 0o600, shm: 0o600 });
      expect(sqlite_file_warnings(path)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  test("files an earlier version left readable by others are narrowed to 0600 when opened (idp migrate too)", async () => {
    process.umask(0o022);
    for (const [name, open] of [
      ["served.db", async (path: string) => (await open_store(`sqlite:${path}`)).close()],
      ["migrated.db", async (path: string) => void (await migrate(`sqlite:${path}`))],
    ] as const) {
      const path = join(root, name);
      const first = await open_store(`sqlite:${path}`);
      await seed_user(first);
      for (const file of [path, `${path}-wal`, `${path}-shm`]) chmodSync(file, 0o644);
      expect(sqlite_file_warnings(path)).toHaveLength(3);
      await open(path);
      await first.close();
      for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) expect(mode_of(file)).toBe(0o600);
    }
  });

  test("a file readable by group or others is named with its mode and the fix", () => {
    const path = join(root, "loose.db");
    writeFileSync(path, "");
    chmodSync(path, 0o640);
    expect(sqlite_file_warnings(path)).toEqual([`SQLite file ${path} is readable by group or others (mode 0640); it holds the signing keys and the accounts: chmod 600 ${path}`]);
    chmodSync(path, 0o600);
    expect(sqlite_file_warnings(path)).toEqual([]);
    expect(sqlite_file_warnings(join(root, "missing.db"))).toEqual([]);
  });
});
