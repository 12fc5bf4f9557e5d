/** SQLite-only behaviour: the pragmas, the in-memory form, and a schema newer than the build. */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open_store } from "../../src/store/open.ts";
import { open_sqlite_database } from "../../src/store/sqlite/connection.ts";
import { load_sqlite_driver } from "../../src/store/sqlite/load_driver.ts";
import { StoreError, StoreUnavailableError } from "../../src/store/types.ts";
import { seed_user } from "./fixtures.ts";
import { rejection } from "../helpers/settle.ts";

/** The runtime's SQLite driver (bun:sqlite or node:sqlite), for the connections beside the store. */
const sqlite = await load_sqlite_driver();

describe("sqlite specifics", () => {
  const dir = mkdtempSync(join(tmpdir(), "idp-sqlite-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("the database file is in WAL mode; a missing directory is created", async () => {
    const path = join(dir, "nested", "deeper", "idp.db");
    const store = await open_store(`sqlite:${path}`);
    await seed_user(store);
    const raw = sqlite.open(path, { readonly: true });
    try {
      expect(raw.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    } finally {
      raw.close();
      await store.close();
    }
  });

  test("the connection reads without a memory map, so the file's pages never count in the process's RSS", async () => {
    const db = open_sqlite_database(join(dir, "nommap.db"), 1000, await load_sqlite_driver());
    try {
      expect(db.query("PRAGMA mmap_size").get()).toEqual({ mmap_size: 0 });
      expect(db.query("PRAGMA synchronous").get()).toEqual({ synchronous: 1 }); // NORMAL
    } finally {
      db.close();
    }
  });

  test("sqlite::memory: gives a private, working database", async () => {
    const a = await open_store("sqlite::memory:");
    const b = await open_store("sqlite::memory:");
    try {
      const user = await seed_user(a);
      expect(await a.get_user_by_id(user.id)).toEqual(user);
      expect(await b.get_user_by_id(user.id)).toBeNull();
      expect(a.kind).toBe("sqlite");
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("foreign keys are enforced on every connection (a second instance cascades too)", async () => {
    const url = `sqlite:${join(dir, "fk.db")}`;
    const first = await open_store(url);
    const second = await open_store(url);
    try {
      const user = await seed_user(first);
      await first.create_session({ id_hash: "s1", user_id: user.id, auth_time: 1, amr: [], expires_at: 2 });
      expect(await second.delete_user(user.id)).toBe(true);
      expect(await first.get_session("s1")).toBeNull();
    } finally {
      await first.close();
      await second.close();
    }
  });

  test("an up-to-date database opens while another process holds the write lock; one needing a migration waits for it", async () => {
    const path = join(dir, "locked.db");
    await (await open_store(`sqlite:${path}`)).close();
    // Another process writing (the server under load holds the lock nearly all the time).
    const other = sqlite.open(path);
    other.exec("BEGIN IMMEDIATE");
    try {
      // Opening migrates, but nothing is pending: it only reads, so it does not wait for the lock.
      const store = await open_store(`sqlite:${path}`, { busy_timeout: 50 });
      try {
        expect(await store.list_users({ limit: 10 })).toEqual([]);
        // A write does need the lock.
        expect(await rejection(seed_user(store, "writer"))).toBeInstanceOf(StoreUnavailableError);
      } finally {
        await store.close();
      }
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    // A database one migration behind must take the lock to migrate, so it waits and then gives up.
    const behind = join(dir, "behind.db");
    await (await open_store(`sqlite:${behind}`)).close();
    const raw = sqlite.open(behind);
    raw.exec("DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)");
    raw.exec("BEGIN IMMEDIATE");
    try {
      expect(await rejection(open_store(`sqlite:${behind}`, { busy_timeout: 50 }))).toBeInstanceOf(StoreUnavailableError);
    } finally {
      raw.exec("ROLLBACK");
      raw.close();
    }
  });

  test("a schema newer than this build is refused", async () => {
    const path = join(dir, "newer.db");
    await (await open_store(`sqlite:${path}`)).close();
    const raw = sqlite.open(path);
    raw.exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)");
    raw.close();
    const opening = open_store(`sqlite:${path}`);
    expect(await rejection(opening)).toBeInstanceOf(StoreError);
    expect((await rejection(opening)).message).toMatch(/newer than this build/);
  });
});
