/**
 * DATABASE_POOL_SIZE reaches the PostgreSQL adapter: with the clients table locked, every /token
 * request holds a pooled connection while it waits, so the number of the instance's connections
 * waiting on the lock is exactly the pool size, however many requests are queued. Rate limits are
 * off: the requests fail client authentication on purpose, and the failure limit would refuse
 * the second run before it reaches the table.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { basic } from "../helpers/flow.ts";
import { base_env, cli_json, spawn_server } from "./process.ts";
import { create_temp_database, TEST_DATABASE_URL, use_postgres, type TempDatabase, pg_connect, type Pg } from "../store/pg.ts";
import { setTimeout as sleep } from "node:timers/promises";

const REQUESTS = 10;

if (await use_postgres()) {
  describe("DATABASE_POOL_SIZE", () => {
    let db: TempDatabase;
    let observer: Pg;

    beforeAll(async () => {
      db = await create_temp_database();
      await cli_json(["migrate"], base_env(db.url));
      observer = pg_connect(TEST_DATABASE_URL);
    }, 30_000);
    afterAll(async () => {
      await observer?.end();
      await db?.drop();
    });

    /** Connections of the instance waiting on a lock (the holder and the observer excluded). */
    async function waiting(holder: number): Promise<number> {
      const [row] = await observer`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${db.name} AND pid <> ${holder} AND wait_event_type = 'Lock'`;
      return (row as { n: number }).n;
    }

    async function connections_under_load(pool_size: number): Promise<{ waiting: number; statuses: number[] }> {
      const server = await spawn_server(base_env(db.url, { DATABASE_POOL_SIZE: String(pool_size), IDP_LOG_REQUESTS: "false", IDP_RATE_LIMITS: "off" }));
      const admin = pg_connect(db.url);
      try {
        let release!: () => void;
        let holder = 0;
        const locked = new Promise<void>((ready) => {
          void admin.begin(async (tx) => {
            await tx`LOCK TABLE clients IN ACCESS EXCLUSIVE MODE`;
            holder = Number((await tx`SELECT pg_backend_pid() AS pid`)[0]!.pid);
            ready();
            await new Promise<void>((resolve) => (release = resolve));
          });
        });
        await locked;
        const requests = Array.from({ length: REQUESTS }, () =>
          fetch(`${server.url}/token`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic("no-such-client", "x") },
            body: "grant_type=authorization_code&code=x",
          }).then((r) => r.status),
        );
        // Wait until the pool is exhausted (no more connections appear), then look once more.
        let seen = 0;
        for (let stable = 0, i = 0; stable < 5 && i < 200; i++) {
          const now = await waiting(holder);
          stable = now === seen && now > 0 ? stable + 1 : 0;
          seen = now;
          await sleep(100);
        }
        release();
        return { waiting: seen, statuses: await Promise.all(requests) };
      } finally {
        await admin.end();
        await server.stop();
      }
    }

    test("pool size 3: at most 3 connections, the other requests queue and all finish when the lock goes", async () => {
      const { waiting, statuses } = await connections_under_load(3);
      expect(waiting).toBe(3);
      expect(statuses).toEqual(Array(REQUESTS).fill(401));
    }, 60_000);

    test("pool size 6: 6 connections (the limit is the setting, not something else)", async () => {
      const { waiting } = await connections_under_load(6);
      expect(waiting).toBe(6);
    }, 60_000);
  });
}
