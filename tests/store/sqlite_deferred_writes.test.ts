/**
 * Deferred writes in the SQLite adapter (`deferred_writes`, src/store/sqlite/group_commit.ts),
 * as the workers of `idp serve --workers N` open their shared file: the writes of a turn run when
 * it ends, so the write lock is free while the turn's JavaScript runs; each write still settles
 * after its COMMIT, a failing one rejects alone, and single use holds across processes.
 */
import { open_raw_sqlite, type RawSqlite } from "../helpers/raw_sqlite.ts";
import { run, script_command } from "../helpers/spawn.ts";
import { afterAll, afterEach, beforeEach, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { open_store } from "../../src/store/open.ts";
import { StoreConflictError, type ClientRow, type Store } from "../../src/store/types.ts";
import { code_input, seed_client, seed_user, T0, token_input, uid } from "./fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "idp-deferred-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let url: string;
let store: Store;
/** A second connection to the same file, as another worker would have. */
let raw: RawSqlite;
let client: ClientRow;

beforeEach(async () => {
  const path = join(dir, `${uid("db")}.db`);
  url = `sqlite:${path}`;
  store = await open_store(url, { deferred_writes: true });
  raw = open_raw_sqlite(path);
  client = await seed_client(store);
});

afterEach(async () => {
  await store.close();
  raw.close();
});

const committed = (hash: string) => raw.get("SELECT 1 FROM tokens WHERE token_hash = ?", hash) !== null;

describe("sqlite deferred writes", () => {
  test("the write lock is free until the turn ends; the write settles after its COMMIT", async () => {
    const input = token_input(null, client);
    const seen: boolean[] = [];
    const write = store.insert_token(input).then(() => seen.push(committed(input.token_hash)));
    // Another process could write now, without waiting (no busy timeout on this connection).
    raw.exec("PRAGMA busy_timeout = 0");
    raw.exec("BEGIN IMMEDIATE");
    raw.exec("ROLLBACK");
    expect(committed(input.token_hash)).toBe(false);
    await write;
    expect(seen).toEqual([true]);
  });

  test("a read settles at once and sees committed rows only", async () => {
    const stored = token_input(null, client);
    await store.insert_token(stored);
    const pending = token_input(null, client);
    const write = store.insert_token(pending);
    expect(await store.get_token(pending.token_hash)).toBeNull();
    expect((await store.get_token(stored.token_hash))?.token_hash).toBe(stored.token_hash);
    await write;
    expect((await store.get_token(pending.token_hash))?.token_hash).toBe(pending.token_hash);
  });

  test("a UNIQUE conflict rejects only its own call; the rest of the turn commits", async () => {
    const taken = await seed_user(store);
    const [dup, first, dup_in_turn, token] = await Promise.allSettled([
      store.create_user({ username: taken.username, password_hash: "x" }),
      store.create_user({ username: "first", password_hash: "x" }),
      store.create_user({ username: "FIRST", password_hash: "x" }),
      store.insert_token(token_input(null, client)),
    ]);
    expect(dup.status === "rejected" && dup.reason).toBeInstanceOf(StoreConflictError);
    expect(dup_in_turn.status === "rejected" && dup_in_turn.reason).toBeInstanceOf(StoreConflictError);
    expect([first.status, token.status]).toEqual(["fulfilled", "fulfilled"]);
    const names = (raw.all("SELECT username FROM users ORDER BY username") as { username: string }[]).map((r) => r.username);
    expect(names).toEqual([taken.username, "first"].sort());
  });

  test("one code redeemed 10 times at once in each of 3 processes: exactly one ok", async () => {
    const user = await seed_user(store);
    const code = await store.insert_code(code_input(user, client));
    const worker = new URL("./deferred_consume_worker.ts", import.meta.url).pathname;
    const runs = Array.from({ length: 3 }, async () => {
      const { code: exit, stdout, stderr } = await run([...script_command(worker), url, "code", code.code_hash, "10", String(T0 + 1)], { env: process.env });
      if (exit !== 0) throw new Error(`worker failed (${exit}): ${stderr}`);
      return JSON.parse(stdout) as string[];
    });
    const statuses = (await Promise.all(runs)).flat();
    expect(statuses.length).toBe(30);
    expect(statuses.filter((s) => s === "ok").length).toBe(1);
    expect(statuses.filter((s) => s === "reused").length).toBe(29);
  }, 30_000);

  test("close() runs the writes still queued", async () => {
    const input = token_input(null, client);
    const write = store.insert_token(input);
    await store.close();
    await write;
    expect(committed(input.token_hash)).toBe(true);
    store = await open_store(url, { deferred_writes: true });
  });
});
