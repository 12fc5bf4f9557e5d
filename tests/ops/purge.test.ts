/**
 * The background purge: a running server deletes expired codes, tokens, sessions and
 * interactions on its interval (clock injected, so "expired" is a clock jump, not a wait), keeps
 * live ones, and stops with the server. On SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { secret_key, sha256 } from "../../src/oidc/crypto/secrets.ts";
import type { Provider } from "../../src/oidc/provider.ts";
import { start_purge } from "../../src/app/purge.ts";
import { DEFAULT_PURGE_BATCH } from "../../src/store/default_limits.ts";
import { MIN_PURGE_BATCH, next_batch_size, PURGE_BATCH_TARGET_MS, purge_in_batches, purge_targets } from "../../src/store/purge.ts";
import type { PurgeCounts } from "../../src/store/types.ts";
import { Browser } from "../helpers/browser.ts";
import { authorization_url, get_code, redeem } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { create_temp_database, use_postgres } from "../store/pg.ts";
import { setTimeout as sleep } from "node:timers/promises";

async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(50);
  }
}

function purge_suite(name: string, database: () => Promise<{ url: string; drop(): Promise<void> }>) {
  describe(`purge on ${name}`, () => {
    let t: TestProvider;
    let db: { url: string; drop(): Promise<void> };
    const logs: Record<string, unknown>[] = [];
    // The stored keys of what one flow leaves behind.
    const rows = { code: "", token: "", session: "", interaction: "" };

    beforeAll(async () => {
      db = await database();
      t = await start_provider({ database_url: db.url, config: { purge_interval_seconds: 1 }, log: (line) => void logs.push(line) });
      const first = await get_code(t);
      const response = await redeem(t, first.code, first.pkce!.verifier);
      rows.token = secret_key(((await response.json()) as { access_token: string }).access_token);
      rows.session = sha256(first.browser.cookies.get("idp_session")!);
      rows.code = secret_key((await get_code(t, {}, { browser: first.browser })).code);
      // An authorization left at the login page.
      const left = await new Browser().get(authorization_url(t));
      rows.interaction = /\/interaction\/([^/]+)\//.exec(left.headers.get("location")!)![1]!;
    }, 30_000);
    afterAll(async () => {
      await t?.stop();
      await db?.drop();
    });

    const present = async () => ({
      code: (await t.store.get_code(rows.code)) !== null,
      token: (await t.store.get_token(rows.token)) !== null,
      session: (await t.store.get_session(rows.session)) !== null,
      interaction: (await t.store.get_interaction(rows.interaction)) !== null,
    });

    test("rows that have not expired survive a purge run", async () => {
      // Two intervals pass: the purge ran and found nothing to delete.
      await sleep(2_200);
      expect(await present()).toEqual({ code: true, token: true, session: true, interaction: true });
      expect(logs.filter((l) => l.msg === "purged expired rows")).toEqual([]);
    });

    test("once the clock passes their expiry, the next run deletes them and logs the counts", async () => {
      t.clock.advance(t.config.tokens.session_ttl + 1);
      await eventually(async () => Object.values(await present()).every((p) => !p));
      // The line is logged once the run has gone through every table, a little after the rows
      // above are gone (more so on PostgreSQL under load): wait for it rather than race it.
      await eventually(async () => logs.some((l) => l.msg === "purged expired rows"));
      const line = logs.find((l) => l.msg === "purged expired rows")!;
      expect(line.codes).toBeGreaterThanOrEqual(1);
      expect(line.tokens).toBeGreaterThanOrEqual(1);
      expect(line.sessions).toBeGreaterThanOrEqual(1);
      expect(line.interactions).toBeGreaterThanOrEqual(1);
      // Its DELETE statements: at least one a table.
      expect(line.batches).toBeGreaterThanOrEqual(purge_targets.length);
      expect(logs.filter((l) => l.msg === "purge failed")).toEqual([]);
    });
  });
}

purge_suite("SQLite", async () => ({ url: "sqlite::memory:", drop: async () => {} }));
if (await use_postgres()) purge_suite("PostgreSQL", create_temp_database);

describe("batch sizes: a purge batch takes about PURGE_BATCH_TARGET_MS", () => {
  test("a slow batch halves the next, a fast one doubles it, within [MIN_PURGE_BATCH, max]", () => {
    const slow = 2 * PURGE_BATCH_TARGET_MS + 1;
    const fast = PURGE_BATCH_TARGET_MS / 2 - 1;
    expect(next_batch_size(1000, slow, 1000)).toBe(500);
    expect(next_batch_size(15, slow, 1000)).toBe(MIN_PURGE_BATCH);
    expect(next_batch_size(MIN_PURGE_BATCH, slow, 1000)).toBe(MIN_PURGE_BATCH);
    expect(next_batch_size(500, fast, 1000)).toBe(1000);
    expect(next_batch_size(1000, fast, 1000)).toBe(1000);
    expect(next_batch_size(400, PURGE_BATCH_TARGET_MS, 1000)).toBe(400);
    // A caller's size below the floor is kept: the batch never grows past what was asked.
    expect(next_batch_size(2, slow, 2)).toBe(2);
    expect(next_batch_size(2, fast, 2)).toBe(2);
  });

  test("purge_in_batches (both adapters' loop): slow batches shrink the next, pauses get each batch's time, stops at a short batch", async () => {
    // 2,000 expired rows at 0.15 ms each on a fake clock: 1,000 take 150 ms (halve), 500 take 75 (keep).
    let clock = 0;
    let left = 2000;
    const limits: number[] = [];
    const pauses: number[] = [];
    const deleted = await purge_in_batches(
      1000,
      async (ms) => void pauses.push(ms),
      async (limit) => {
        limits.push(limit);
        const n = Math.min(limit, left);
        left -= n;
        clock += n * 0.15;
        return n;
      },
      () => clock,
    );
    expect(deleted).toBe(2000);
    expect(limits).toEqual([1000, 500, 500, 500]);
    expect(pauses.map((ms) => Math.round(ms))).toEqual([150, 75, 75]);
  });
});

describe("start_purge (the loop)", () => {
  const counts: PurgeCounts = {
    codes: 0,
    tokens: 0,
    sessions: 0,
    interactions: 0,
    jtis: 0,
    counters: 0,
    initial_access_tokens: 0,
    user_tokens: 0,
    webauthn_challenges: 0,
    upstream_states: 0,
    pushed_requests: 0,
    device_authorizations: 0,
    mail: 0,
    webhook_deliveries: 0,
    revoked_grants: 0,
  };

  function fake(purge_expired: (now: number, batch?: number, pause?: (batch_ms: number) => Promise<void>) => Promise<PurgeCounts>, logs: Record<string, unknown>[] = []): Provider {
    // unverified_account_days 0 and registration_unused_client_days 0: the loop's deletion of accounts never
    // completed and of clients never used stays off here (tests/http/stale_accounts.test.ts, the suites below).
    return {
      store: { purge_expired },
      config: { signup: { unverified_account_days: 0 }, registration_unused_client_days: 0 },
      now: () => 1000,
      log: (line: Record<string, unknown>) => void logs.push(line),
    } as unknown as Provider;
  }

  test("one run at a time, in bounded batches; stop() waits for the running one", async () => {
    let calls = 0;
    let batch: number | undefined;
    let release!: () => void;
    const idp = fake(async (_now, size) => {
      calls++;
      batch = size;
      await new Promise<void>((resolve) => (release = resolve));
      return { ...counts, codes: 3 };
    });
    const loop = start_purge(idp, { interval_seconds: 3600, batch_size: 250 });
    const first = loop.run();
    const second = loop.run();
    expect(calls).toBe(1);
    expect(batch).toBe(250);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await sleep(10);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await first).toEqual({ ...counts, codes: 3 });
    expect(await second).toEqual({ ...counts, codes: 3 });
  });

  test("without batch_size the loop purges in batches of 1000 rows (README, Running several instances)", async () => {
    let batch: number | undefined;
    const loop = start_purge(
      fake(async (_now, size) => {
        batch = size;
        return counts;
      }),
      { interval_seconds: 3600 },
    );
    await loop.run();
    await loop.stop();
    expect(batch).toBe(1000);
    expect(DEFAULT_PURGE_BATCH).toBe(1000);
  });

  test("paces itself: after each batch it waits as long as the batch took", async () => {
    const waited: number[] = [];
    const loop = start_purge(
      fake(async (_now, _size, pause) => {
        for (const batch_ms of [30, 1]) {
          const t0 = performance.now();
          await pause!(batch_ms);
          waited.push(performance.now() - t0);
        }
        return counts;
      }),
      { interval_seconds: 3600 },
    );
    await loop.run();
    await loop.stop();
    // Timers may fire a little early on a loaded machine, never much.
    expect(waited[0]!).toBeGreaterThanOrEqual(25);
    expect(waited[1]!).toBeGreaterThanOrEqual(0.5);
  });

  test("stop() ends a long purge after its current batch: no shutdown waits for a backlog", async () => {
    const logs: Record<string, unknown>[] = [];
    let batches = 0;
    const loop = start_purge(
      fake(async (_now, _size, pause) => {
        // A backlog without end: batch after batch until the loop says stop.
        for (;;) {
          batches++;
          await pause!(5);
        }
      }, logs),
      { interval_seconds: 3600 },
    );
    const running = loop.run();
    await sleep(50);
    const t0 = performance.now();
    await loop.stop();
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(await running).toBeNull();
    expect(batches).toBeGreaterThan(1);
    expect(logs).toEqual([{ level: "info", msg: "purge stopped by shutdown" }]);
  });

  test("a failing run is logged and resolves to null; the next one runs", async () => {
    const logs: Record<string, unknown>[] = [];
    let fail = true;
    const loop = start_purge(
      fake(async () => (fail ? Promise.reject(new Error("database away")) : counts), logs),
      { interval_seconds: 3600 },
    );
    expect(await loop.run()).toBeNull();
    expect(logs).toEqual([{ level: "error", msg: "purge failed", error: "database away" }]);
    fail = false;
    expect(await loop.run()).toEqual(counts);
    await loop.stop();
  });
});
