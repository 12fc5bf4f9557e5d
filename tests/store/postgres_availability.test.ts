/**
 * PostgreSQL-only behaviour: an unreachable database surfaces as StoreUnavailableError quickly
 * (so the server answers 503 instead of hanging), the pool recovers when the database returns,
 * the pool size holds, and a schema newer than the build is refused. Through each PostgreSQL
 * driver: Bun.SQL, the runtime's, and postgres.js, which Deno uses (their errors differ).
 */
import { afterAll, beforeAll, describe, expect, RUNTIME, test } from "../helpers/test_api.ts";
import type { PgDriver } from "../../src/store/postgres/driver.ts";
import { open_postgres_store } from "../../src/store/postgres/index.ts";
import { POSTGRES_JS } from "../../src/store/postgres/postgres_js.ts";
import { StoreError, StoreUnavailableError, type OpenStoreOptions, type Store } from "../../src/store/types.ts";
import { concurrently, seed_user } from "./fixtures.ts";
import { create_temp_database, TEST_DATABASE_URL, use_postgres, type TempDatabase, pg_connect } from "./pg.ts";
import { blackhole, closed_port, tcp_proxy } from "./tcp_proxy.ts";

/** The error a promise rejects with (or fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

const DRIVERS: [name: string, driver: PgDriver | undefined][] = [
  ["the runtime's driver", undefined],
  ["postgres.js", POSTGRES_JS],
];

for (const [name, driver] of (await use_postgres()) ? DRIVERS : []) {
  const open_store = (url: string, options?: OpenStoreOptions) => open_postgres_store(url, options, driver);
  describe(`postgres: availability (${name})`, () => {
    let db: TempDatabase;
    const target = new URL(TEST_DATABASE_URL);
    const via_port = (port: number) => {
      const url = new URL(db.url);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    };

    beforeAll(async () => {
      db = await create_temp_database();
      (await open_store(db.url)).close();
    });
    afterAll(async () => {
      await db.drop();
    });

    test("opening against a closed port raises StoreUnavailableError", async () => {
      const error = await rejection(open_store(via_port(await closed_port()), { connection_timeout: 2 }));
      expect(error).toBeInstanceOf(StoreUnavailableError);
    }, 10_000);

    test("a server that never answers raises StoreUnavailableError after connection_timeout, not a hang", async () => {
      const hole = await blackhole();
      try {
        const error = await rejection(open_store(via_port(hole.port), { connection_timeout: 1 }));
        expect(error).toBeInstanceOf(StoreUnavailableError);
      } finally {
        await hole.close();
      }
    }, 10_000);

    test("calls fail with StoreUnavailableError while the database is gone and succeed when it returns", async () => {
      const proxy = await tcp_proxy(target.hostname, Number(target.port || 5432));
      let store: Store | undefined;
      try {
        store = await open_store(via_port(proxy.port), { connection_timeout: 2, max: 2 });
        const user = await seed_user(store);
        await proxy.stop();
        expect(await rejection(store.get_user_by_id(user.id))).toBeInstanceOf(StoreUnavailableError);
        expect(await rejection(store.ping())).toBeInstanceOf(StoreUnavailableError);
        await proxy.start();
        await store.ping();
        expect(await store.get_user_by_id(user.id)).toEqual(user);
      } finally {
        await store?.close().catch(() => {});
        await proxy.stop();
      }
    }, 20_000);

    // postgres.js is Deno's driver; under Bun its reconnection after pg_terminate_backend times out
    // (Bun's node:net under postgres.js), a pairing that never runs in production: Deno tests it.
    test.skipIf(RUNTIME === "bun" && driver === POSTGRES_JS)(
      "after pg_terminate_backend kills its connections the next calls still succeed",
      async () => {
        const store = await open_store(db.url, { max: 3 });
        const admin = pg_connect(TEST_DATABASE_URL);
        try {
          const user = await seed_user(store);
          await concurrently(6, () => store.ping());
          const [killed] = await admin`
          SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = ${db.name} AND pid <> pg_backend_pid()`;
          expect(Number(killed!.n)).toBeGreaterThan(0);
          // Each dead pooled connection fails its next call unrun; the store retries on another.
          expect(await concurrently(5, () => store.get_user_by_id(user.id))).toEqual(Array(5).fill(user));
        } finally {
          await store.close();
          await admin.end();
        }
      },
      20_000,
    );

    test("the pool never opens more than `max` connections", async () => {
      const store = await open_store(db.url, { max: 3 });
      const admin = pg_connect(TEST_DATABASE_URL);
      try {
        await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${db.name}`;
        await concurrently(30, () => store.list_users({ limit: 5 }));
        const [row] = await admin`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = ${db.name}`;
        expect(Number(row!.n)).toBeGreaterThanOrEqual(1);
        expect(Number(row!.n)).toBeLessThanOrEqual(3);
      } finally {
        await store.close();
        await admin.end();
      }
    }, 20_000);

    test("a schema newer than this build is refused", async () => {
      const newer = await create_temp_database();
      try {
        (await open_store(newer.url)).close();
        const sql = pg_connect(newer.url);
        await sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)`;
        await sql.end();
        const error = await rejection(open_store(newer.url));
        expect(error).toBeInstanceOf(StoreError);
        expect((error as Error).message).toMatch(/newer than this build/);
      } finally {
        await newer.drop();
      }
    });
  });
}
