import { describe, expect, test } from "../../helpers/test_api.ts";
import { migrate, open_store } from "../../../src/store/open.ts";
import { latest_version, migrations } from "../../../src/store/migrations/index.ts";
import { StoreError, StoreUnavailableError } from "../../../src/store/types.ts";
import { concurrently, seed_user } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

export function lifecycle_tests(ctx: SuiteContext): void {
  describe("migrations and lifecycle", () => {
    test("opening an existing database again applies nothing and keeps the data", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const again = await ctx.target().open();
      try {
        expect(await again.migrate()).toEqual({ applied: [], version: latest_version });
        expect(await again.get_user_by_id(user.id)).toEqual(user);
      } finally {
        await again.close();
      }
    });

    test("migrate() on an empty database applies every migration once, then nothing", async () => {
      const fresh = await ctx.factory();
      try {
        const all = migrations.map((m) => m.version).toSorted((a, b) => a - b);
        expect(await migrate(fresh.url)).toEqual({ applied: all, version: latest_version });
        expect(await migrate(fresh.url)).toEqual({ applied: [], version: latest_version });
      } finally {
        await fresh.drop();
      }
    });

    test("instances opening an empty database together all succeed and share one schema", async () => {
      const fresh = await ctx.factory();
      try {
        // Migration scripts use plain CREATE TABLE: a second application would fail the open.
        const stores = await concurrently(3, () => fresh.open());
        await seed_user(stores[0]!);
        expect(await stores[2]!.list_users()).toHaveLength(1);
        expect(await stores[1]!.migrate()).toEqual({ applied: [], version: latest_version });
        for (const store of stores) await store.close();
      } finally {
        await fresh.drop();
      }
    });

    test("concurrent migrate() runs on an empty database: exactly one applies the migrations", async () => {
      const fresh = await ctx.factory();
      try {
        const results = await concurrently(4, () => migrate(fresh.url));
        expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
        expect(results.every((r) => r.version === latest_version)).toBe(true);
      } finally {
        await fresh.drop();
      }
    });

    test("with migrate: false an empty database is refused with a message naming idp migrate", async () => {
      const fresh = await ctx.factory();
      try {
        const opening = open_store(fresh.url, { migrate: false });
        expect(await rejection(opening)).toBeInstanceOf(StoreError);
        expect((await rejection(opening)).message).toMatch(/idp migrate/);
        await migrate(fresh.url);
        const store = await open_store(fresh.url, { migrate: false });
        await store.close();
      } finally {
        await fresh.drop();
      }
    });

    test("ping answers while open; every call on a closed store is unavailable; close twice is harmless", async () => {
      const store = await ctx.target().open();
      expect(store.kind).toBe(ctx.store().kind);
      await store.ping();
      await store.close();
      expect(await rejection(store.ping())).toBeInstanceOf(StoreUnavailableError);
      expect(await rejection(store.get_user_by_id("anyone"))).toBeInstanceOf(StoreUnavailableError);
      await store.close();
    });

    test("claim_job: one caller of several takes a due job, then nobody until the interval has passed", async () => {
      const store = ctx.store();
      const name = `job-${crypto.randomUUID()}`;
      const first = await Promise.all([1, 2, 3, 4].map(() => store.claim_job(name, 1000, 60)));
      expect(first.filter(Boolean)).toHaveLength(1);
      expect(await store.claim_job(name, 1059, 60)).toBe(false);
      expect(await concurrently(3, () => store.claim_job(name, 1060, 60))).toEqual(expect.arrayContaining([true, false, false]));
      // Another job's runs are its own.
      expect(await store.claim_job(`${name}-other`, 1060, 60)).toBe(true);
    });
  });
}
