/**
 * PostgreSQL for tests: where it is, whether it answers, and throwaway databases.
 *
 * The server is `postgres://postgres@127.0.0.1:5432/test` unless TEST_DATABASE_URL says
 * otherwise; that database is only used to create and drop per-file databases. When it is not
 * reachable, PostgreSQL tests are skipped with one line on stderr, or fail when
 * IDP_REQUIRE_POSTGRES=1 (CI sets it).
 *
 * The tests' own connections (to create databases, look at rows, hold a lock) are postgres.js,
 * which Bun and Deno both run, whatever driver the store uses.
 */
import postgres from "postgres";
import { test } from "../helpers/test_api.ts";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A connection of the test's own (pool of `max`, default 1), beside the store's; `end()` closes it. */
export function pg_connect(url: string, options: { max?: number; connect_timeout?: number } = {}) {
  return postgres(url, { max: options.max ?? 1, connect_timeout: options.connect_timeout, onnotice: () => {} });
}

export type Pg = ReturnType<typeof pg_connect>;

let available: Promise<boolean> | undefined;

/** Whether the test server answers (asked once per process). */
export function pg_available(): Promise<boolean> {
  available ??= (async () => {
    const sql = pg_connect(TEST_DATABASE_URL, { connect_timeout: 3 });
    try {
      await sql`SELECT 1`;
      return true;
    } catch {
      return false;
    } finally {
      await sql.end({ timeout: 0 }).catch(() => {});
    }
  })();
  return available;
}

let told = false;

/**
 * Call at the top level of a PostgreSQL test file: true when its tests should run. Otherwise
 * prints the skip line once per process, or registers a failing test when PostgreSQL is required.
 */
export async function use_postgres(): Promise<boolean> {
  if (await pg_available()) return true;
  if (process.env.IDP_REQUIRE_POSTGRES === "1") {
    test("PostgreSQL is reachable (IDP_REQUIRE_POSTGRES=1)", () => {
      throw new Error(`PostgreSQL not reachable at ${TEST_DATABASE_URL}, and IDP_REQUIRE_POSTGRES=1 requires it`);
    });
    return false;
  }
  if (!told) {
    told = true;
    console.warn(`PostgreSQL not reachable at ${TEST_DATABASE_URL}: skipping PostgreSQL store tests (set IDP_REQUIRE_POSTGRES=1 to require them)`);
  }
  return false;
}

export type TempDatabase = { url: string; name: string; drop(): Promise<void> };

/** A new empty database `idp_t_<random>` on the test server; `drop()` removes it (even if in use). */
export async function create_temp_database(): Promise<TempDatabase> {
  const name = `idp_t_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
  const admin = pg_connect(TEST_DATABASE_URL, { connect_timeout: 5 });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end({ timeout: 0 }).catch(() => {});
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const sql = pg_connect(TEST_DATABASE_URL, { connect_timeout: 5 });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await sql.end({ timeout: 0 }).catch(() => {});
      }
    },
  };
}

/** A database a test runs against: SQLite (`url` ""), or a new PostgreSQL database to drop afterwards. */
export type TestDatabase = { name: string; url: () => Promise<{ url: string; drop(): Promise<void> }> };

/** SQLite, and PostgreSQL when it is reachable (use_postgres): a test repeats itself for each. */
export async function test_databases(): Promise<TestDatabase[]> {
  const databases: TestDatabase[] = [{ name: "sqlite", url: async () => ({ url: "", drop: async () => {} }) }];
  if (await use_postgres()) {
    databases.push({
      name: "postgres",
      url: async () => {
        const db = await create_temp_database();
        return { url: db.url, drop: () => db.drop() };
      },
    });
  }
  return databases;
}
