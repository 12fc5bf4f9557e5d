/**
 * Migration 5 (src/store/migrations/005_username_nfkc.ts): a database whose username keys were
 * NFC and lower case only is rekeyed with NFKC and case folding (store/usernames.ts), so a
 * fullwidth name signs in by its plain spelling; two accounts that become one name fail the
 * migration, which then changes nothing. On both databases.
 */
import { open_raw_sqlite } from "../helpers/raw_sqlite.ts";
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { latest_version, migrations } from "../../src/store/migrations/index.ts";
import { migrate, open_store } from "../../src/store/open.ts";
import { username_key } from "../../src/store/usernames.ts";
import { create_temp_database, use_postgres, pg_connect } from "./pg.ts";
import { T0 } from "./fixtures.ts";
import { rejection } from "../helpers/settle.ts";

const before = migrations.filter((m) => m.version < 5);

/** A user row as builds before migration 5 wrote it: the key NFC and lower case only. */
function user_sql(id: string, username: string): string {
  const old_key = username.normalize("NFC").toLowerCase();
  return `INSERT INTO users (id, username, username_key, password_hash, email_verified, phone_number_verified, created_at, updated_at)
  VALUES ('${id}', '${username}', '${old_key}', 'h', FALSE, FALSE, ${T0}, ${T0});`;
}

// "Ｂob" (fullwidth B): its old key "ｂob" is not what NFKC makes of "bob"; "Zoë" typed in NFD
// (e + U+0308) had the NFC key "zoë" already; "carol" is unchanged.
const FULLWIDTH = "\uFF22ob";
const NFD_ZOE = "Zoe\u0308";
const ROWS = [user_sql("u1", FULLWIDTH), user_sql("u2", NFD_ZOE), user_sql("u3", "carol")].join("\n");
// Two accounts that the new rule makes one: "ａlice" (fullwidth a) and "alice".
const COLLIDING = [user_sql("a1", "alice"), user_sql("a2", "\uFF41lice")].join("\n");

async function check_rekeyed(url: string): Promise<void> {
  expect(await migrate(url)).toEqual({ applied: migrations.filter((m) => m.version >= 5).map((m) => m.version), version: latest_version });
  const store = await open_store(url, { migrate: false });
  try {
    for (const spelling of ["bob", "BOB", "\uFF42\uFF4F\uFF42", FULLWIDTH]) expect((await store.get_user_by_username(spelling))?.id).toBe("u1");
    for (const spelling of ["zo\u00EB", "ZO\u00CB", NFD_ZOE]) expect((await store.get_user_by_username(spelling))?.id).toBe("u2");
    expect((await store.get_user_by_username("Carol"))?.id).toBe("u3");
    // The names as created are kept.
    expect((await store.get_user_by_id("u1"))?.username).toBe(FULLWIDTH);
  } finally {
    await store.close();
  }
}

async function check_refused(url: string, read_version: () => Promise<number>, read_keys: () => Promise<string[]>): Promise<void> {
  const error = await rejection(migrate(url));
  expect(String((error as Error).message)).toContain('the accounts "alice" (id a1) and "\uFF41lice" (id a2) are one username');
  expect(String((error as Error).message)).toContain("rename or remove one of them");
  // Nothing changed: still version 4 or below, the keys as they were.
  expect(await read_version()).toBeLessThan(5);
  expect((await read_keys()).toSorted()).toEqual(["alice", "\uFF41lice"]);
}

test("the key: NFKC and case folding, one key per spelling", () => {
  expect(username_key("Jose\u0301")).toBe(username_key("Jos\u00E9"));
  expect(username_key("\uFF21\uFF4C\uFF49\uFF43\uFF45")).toBe("alice");
  expect(username_key("\u212Aelvin")).toBe("kelvin"); // KELVIN SIGN
  expect(username_key("ALICE")).toBe("alice");
});

describe("migration 5: sqlite", () => {
  const dir = mkdtempSync(join(tmpdir(), "idp-nfkc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function older_database(name: string, rows: string): string {
    const path = join(dir, name);
    const raw = open_raw_sqlite(path);
    raw.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT");
    for (const m of before) {
      raw.exec(m.sqlite);
      raw.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)", m.version, m.name);
    }
    raw.exec(rows);
    raw.close();
    return path;
  }

  test("rows keyed NFC-only are rekeyed; every spelling finds its account", async () => {
    await check_rekeyed(`sqlite:${older_database("rekey.db", ROWS)}`);
  });

  test("two accounts that become one name: the migration fails, naming both, and changes nothing", async () => {
    const path = older_database("collide.db", COLLIDING);
    const read = <T>(query: string) => {
      const db = open_raw_sqlite(path, { readonly: true });
      try {
        return db.all(query) as T[];
      } finally {
        db.close();
      }
    };
    await check_refused(
      `sqlite:${path}`,
      async () => Math.max(...read<{ version: number }>("SELECT version FROM schema_migrations").map((r) => r.version)),
      async () => read<{ username_key: string }>("SELECT username_key FROM users").map((r) => r.username_key),
    );
  });
});

if (await use_postgres()) {
  describe("migration 5: postgres", () => {
    async function older_database(rows: string) {
      const db = await create_temp_database();
      const sql = pg_connect(db.url);
      await sql`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`;
      for (const m of before) {
        await sql.unsafe(m.postgres);
        await sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, 0)`;
      }
      await sql.unsafe(rows);
      return { db, sql };
    }

    test("rows keyed NFC-only are rekeyed; every spelling finds its account", async () => {
      const { db, sql } = await older_database(ROWS);
      try {
        await check_rekeyed(db.url);
      } finally {
        await sql.end({ timeout: 0 });
        await db.drop();
      }
    });

    test("two accounts that become one name: the migration fails, naming both, and changes nothing", async () => {
      const { db, sql } = await older_database(COLLIDING);
      try {
        await check_refused(
          db.url,
          async () => Number((await sql`SELECT max(version) AS v FROM schema_migrations`)[0]!.v),
          async () => ((await sql`SELECT username_key FROM users`) as { username_key: string }[]).map((r) => r.username_key),
        );
      } finally {
        await sql.end({ timeout: 0 });
        await db.drop();
      }
    });
  });
}
