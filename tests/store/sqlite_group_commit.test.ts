/**
 * Group commit in the SQLite adapter (src/store/sqlite/group_commit.ts), on real files: the
 * writes of one event-loop turn share one transaction, each call settles only after its COMMIT,
 * and a failing call or COMMIT rejects exactly the calls it should.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open_store } from "../../src/store/open.ts";
import { map_sqlite_error } from "../../src/store/sqlite/connection.ts";
import type { SqliteDatabase } from "../../src/store/sqlite/driver.ts";
import { DEFAULT_MAX_BATCH, GroupCommit } from "../../src/store/sqlite/group_commit.ts";
import { load_sqlite_driver } from "../../src/store/sqlite/load_driver.ts";
import { StoreConflictError, StoreReferenceError, StoreUnavailableError, type ClientRow, type Store } from "../../src/store/types.ts";
import { T0, code_input, seed_client, seed_user, token_input, uid } from "./fixtures.ts";
import { rejection } from "../helpers/settle.ts";

/** The runtime's SQLite driver (bun:sqlite or node:sqlite), for the connections beside the store. */
const sqlite = await load_sqlite_driver();
const dir = mkdtempSync(join(tmpdir(), "idp-group-commit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let path: string;
let store: Store;
/** A second connection to the same file, as another process would have. */
let raw: SqliteDatabase;
let client: ClientRow;

beforeEach(async () => {
  path = join(dir, `${uid("db")}.db`);
  store = await open_store(`sqlite:${path}`);
  raw = sqlite.open(path);
  raw.exec("PRAGMA busy_timeout = 5000");
  client = await seed_client(store);
});

afterEach(async () => {
  await store.close();
  raw.close();
});

/** Whether the second connection sees the token (only committed rows are visible to it). */
function committed(token_hash: string): boolean {
  return raw.query("SELECT 1 FROM tokens WHERE token_hash = ?").get(token_hash) !== null;
}

function versions(): number[] {
  return (raw.query("SELECT version FROM schema_migrations ORDER BY version").all() as { version: number }[]).map((r) => r.version);
}

function token_count(): number {
  return (raw.query("SELECT count(*) AS n FROM tokens").get() as { n: number }).n;
}

describe("sqlite group commit", () => {
  test("many writes started in one turn are all committed, in batches of at most DEFAULT_MAX_BATCH", async () => {
    const inputs = Array.from({ length: DEFAULT_MAX_BATCH * 2 + 10 }, () => token_input(null, client));
    const calls = inputs.slice(0, DEFAULT_MAX_BATCH).map((input) => store.insert_token(input));
    // The cap commits the batch at once, in this very turn.
    expect(token_count()).toBe(DEFAULT_MAX_BATCH);
    calls.push(store.insert_token(inputs[DEFAULT_MAX_BATCH]!));
    expect(token_count()).toBe(DEFAULT_MAX_BATCH);
    for (const input of inputs.slice(DEFAULT_MAX_BATCH + 1)) calls.push(store.insert_token(input));
    await Promise.all(calls);

    const reopened = sqlite.open(path, { readonly: true });
    try {
      expect((reopened.query("SELECT count(*) AS n FROM tokens").get() as { n: number }).n).toBe(inputs.length);
    } finally {
      reopened.close();
    }
  });

  test("a write's promise resolves only once its row is committed; a read in the same batch waits for that commit too", async () => {
    const input = token_input(null, client);
    const seen_at_write: boolean[] = [];
    const seen_at_read: boolean[] = [];
    const write = store.insert_token(input).then(() => seen_at_write.push(committed(input.token_hash)));
    // Same turn, same transaction: the read sees the uncommitted row...
    const read = store.get_token(input.token_hash).then((row) => {
      seen_at_read.push(committed(input.token_hash));
      return row;
    });
    // ...which no other connection sees before the turn ends.
    expect(committed(input.token_hash)).toBe(false);
    const [, row] = await Promise.all([write, read]);
    expect(row?.token_hash).toBe(input.token_hash);
    expect(seen_at_write).toEqual([true]);
    expect(seen_at_read).toEqual([true]);
  });

  test("a read with no batch open runs on its own: it needs no write lock", async () => {
    const input = token_input(null, client);
    await store.insert_token(input);
    raw.exec("BEGIN IMMEDIATE");
    try {
      expect((await store.get_token(input.token_hash))?.token_hash).toBe(input.token_hash);
    } finally {
      raw.exec("ROLLBACK");
    }
  });

  test("a UNIQUE conflict rejects only its own call; the rest of the batch commits", async () => {
    const taken = await seed_user(store);
    // The first call opens the batch (it fails alone too); the others run in savepoints.
    const [duplicateOfStored, first, second, duplicateInBatch, token] = await Promise.allSettled([
      store.create_user({ username: taken.username, password_hash: "x" }),
      store.create_user({ username: "first", password_hash: "x" }),
      store.create_user({ username: "second", password_hash: "x" }),
      store.create_user({ username: "FIRST", password_hash: "x" }),
      store.insert_token(token_input(null, client)),
    ]);
    expect(first.status).toBe("fulfilled");
    expect(second.status).toBe("fulfilled");
    expect(token.status).toBe("fulfilled");
    expect(duplicateOfStored.status === "rejected" && duplicateOfStored.reason).toBeInstanceOf(StoreConflictError);
    expect(duplicateInBatch.status === "rejected" && duplicateInBatch.reason).toBeInstanceOf(StoreConflictError);
    const names = (raw.query("SELECT username FROM users ORDER BY username").all() as { username: string }[]).map((r) => r.username);
    expect(names).toEqual([taken.username, "first", "second"].sort());
  });

  test("a method built on db.transaction stays atomic inside a batch when it fails halfway", async () => {
    const user = await seed_user(store);
    await store.set_recovery_codes(user.id, ["old-1", "old-2"]);
    // The second insert of set_recovery_codes fails after the delete and the first insert ran.
    raw.exec(`CREATE TRIGGER poison_code BEFORE INSERT ON user_recovery_codes WHEN NEW.code_hash = 'poison'
              BEGIN SELECT RAISE(ABORT, 'poisoned code'); END`);
    const other = await seed_user(store);
    const [replace, rename, token] = await Promise.allSettled([
      store.set_recovery_codes(user.id, ["new-1", "poison"]),
      // update_user is a read-then-write transaction too; this one conflicts on the username.
      store.update_user(other.id, { username: user.username }),
      store.insert_token(token_input(user, client)),
    ]);
    expect(replace.status === "rejected" && String(replace.reason)).toContain("poisoned code");
    expect(rename.status === "rejected" && rename.reason).toBeInstanceOf(StoreConflictError);
    expect(token.status).toBe("fulfilled");
    expect(await store.count_recovery_codes(user.id)).toBe(2);
    expect(await store.consume_recovery_code(user.id, "old-1")).toBe(true);
    expect((await store.get_user_by_id(other.id))?.username).toBe(other.username);
  });

  test("a call that throws after its own write leaves nothing behind (its savepoint is rolled back)", async () => {
    const user = await seed_user(store);
    const code = code_input(user, client);
    await store.insert_code(code);
    // consume_code marks the row, then fails to decode it: the mark must not survive.
    raw.query("UPDATE codes SET amr = '[broken' WHERE code_hash = ?").run(code.code_hash);
    const token = token_input(user, client);
    const [insert, consume] = await Promise.allSettled([store.insert_token(token), store.consume_code(code.code_hash, T0 + 1)]);
    expect(consume.status === "rejected" && consume.reason).toBeInstanceOf(SyntaxError);
    expect(insert.status).toBe("fulfilled");
    expect(raw.query("SELECT consumed_at FROM codes WHERE code_hash = ?").get(code.code_hash)).toEqual({ consumed_at: null });
    expect(committed(token.token_hash)).toBe(true);

    // The same as the call that opens a batch: ROLLBACK undoes it, the next call opens another.
    const later = token_input(user, client);
    const [again, after] = await Promise.allSettled([store.consume_code(code.code_hash, T0 + 1), store.insert_token(later)]);
    expect(again.status === "rejected" && again.reason).toBeInstanceOf(SyntaxError);
    expect(after.status).toBe("fulfilled");
    expect(raw.query("SELECT consumed_at FROM codes WHERE code_hash = ?").get(code.code_hash)).toEqual({ consumed_at: null });
    expect(committed(later.token_hash)).toBe(true);
  });

  test("a failed COMMIT rejects every call of the batch, reads included, and rolls all of it back", async () => {
    // A deferred foreign key is checked at COMMIT: a hit on the key 'poison' makes it fail.
    raw.exec(`CREATE TABLE poison_parent (id TEXT PRIMARY KEY);
              CREATE TABLE poison_child (parent_id TEXT REFERENCES poison_parent (id) DEFERRABLE INITIALLY DEFERRED);
              CREATE TRIGGER poison_commit AFTER INSERT ON counters WHEN NEW.key = 'poison'
              BEGIN INSERT INTO poison_child (parent_id) VALUES ('missing'); END;`);
    const input = token_input(null, client);
    const results = await Promise.allSettled([store.insert_token(input), store.hit("poison", 60, 1_700_000_000), store.get_token(input.token_hash)]);
    for (const result of results) {
      expect(result.status).toBe("rejected");
      expect(result.status === "rejected" && result.reason).toBeInstanceOf(StoreReferenceError);
    }
    expect(committed(input.token_hash)).toBe(false);
    expect(raw.query("SELECT count(*) AS n FROM counters").get()).toEqual({ n: 0 });
    // The connection is usable again: the next batch commits.
    const next = token_input(null, client);
    await store.insert_token(next);
    expect(committed(next.token_hash)).toBe(true);
  });

  test("a write while another connection holds the write lock is unavailable; the store recovers", async () => {
    const impatient = await open_store(`sqlite:${path}`, { busy_timeout: 50 });
    try {
      raw.exec("BEGIN IMMEDIATE");
      try {
        expect(await rejection(impatient.insert_token(token_input(null, client)))).toBeInstanceOf(StoreUnavailableError);
      } finally {
        raw.exec("ROLLBACK");
      }
      const input = token_input(null, client);
      await impatient.insert_token(input);
      expect(committed(input.token_hash)).toBe(true);
    } finally {
      await impatient.close();
    }
  });

  test("two instances in one process writing in the same turn do not wait on each other's batch", async () => {
    const second = await open_store(`sqlite:${path}`, { busy_timeout: 50 });
    try {
      const inputs = Array.from({ length: 6 }, () => token_input(null, client));
      await Promise.all(inputs.map((input, i) => (i % 2 ? second : store).insert_token(input)));
      for (const input of inputs) expect(committed(input.token_hash)).toBe(true);
    } finally {
      await second.close();
    }
  });

  test("a purge, or a store opened, while another store of this process holds a batch open does not wait for its lock", async () => {
    const second = await open_store(`sqlite:${path}`, { busy_timeout: 50 });
    // One migration behind (migration 3 only recreates indexes: it can run again), so opening the
    // third store below must take the write lock to migrate, not just read the versions.
    raw.exec("DELETE FROM schema_migrations WHERE version = 3");
    try {
      const kept = token_input(null, client, { expires_at: 2_000_000_000 });
      const also = token_input(null, client, { expires_at: 2_000_000_000 });
      const write = store.insert_token(kept);
      // Same turn: the first store's batch (and its write lock) is still open.
      const purged = second.purge_expired(T0);
      // The purge committed that batch; this write opens another one, which the open must commit.
      const write_also = store.insert_token(also);
      const third = open_store(`sqlite:${path}`, { busy_timeout: 50 });
      expect(await purged).toBeDefined();
      const opened = await third;
      await opened.close();
      expect(versions()).toContain(3);
      await Promise.all([write, write_also]);
      expect(committed(also.token_hash)).toBe(true);
      expect(committed(kept.token_hash)).toBe(true);
    } finally {
      await second.close();
    }
  });

  test("close() commits the open batch; calls after it are unavailable", async () => {
    const inputs = [token_input(null, client), token_input(null, client)];
    const writes = inputs.map((input) => store.insert_token(input));
    const read = store.get_token(inputs[0]!.token_hash);
    await store.close();
    await Promise.all(writes);
    expect((await read)?.token_hash).toBe(inputs[0]!.token_hash);
    for (const input of inputs) expect(committed(input.token_hash)).toBe(true);
    expect(await rejection(store.insert_token(token_input(null, client)))).toBeInstanceOf(StoreUnavailableError);
    expect(await rejection(store.get_token(inputs[0]!.token_hash))).toBeInstanceOf(StoreUnavailableError);
  });

  test("purge_expired commits the open batch first and runs on its own", async () => {
    const live = token_input(null, client, { expires_at: 2_000_000_000 });
    const expired = token_input(null, client, { expires_at: 1 });
    const writes = [store.insert_token(live), store.insert_token(expired)];
    const counts = await store.purge_expired(1_800_000_000);
    await Promise.all(writes);
    expect(counts.tokens).toBe(1);
    expect(committed(live.token_hash)).toBe(true);
    expect(committed(expired.token_hash)).toBe(false);
  });
});

describe("GroupCommit on its own", () => {
  test("when SQLite rolls the whole transaction back during a call, every call of the batch rejects", async () => {
    const db = sqlite.open(join(dir, `${uid("unit")}.db`));
    try {
      db.exec("CREATE TABLE t (v TEXT PRIMARY KEY)");
      const group = new GroupCommit(db, map_sqlite_error);
      const insert = (v: string) => db.query("INSERT INTO t (v) VALUES (?)").run(v);
      // As SQLITE_FULL or SQLITE_IOERR do: the transaction is gone when the statement fails.
      const lost = () => {
        db.exec("ROLLBACK");
        throw new Error("disk full");
      };
      const results = await Promise.allSettled([group.write(insert, ["a"]), group.write(lost, []), group.write(insert, ["b"])]);
      expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "fulfilled"]);
      expect(db.query("SELECT v FROM t").all()).toEqual([{ v: "b" }]);
    } finally {
      db.close();
    }
  });
});
