import { describe, expect, test } from "../../helpers/test_api.ts";
import { concurrently, seed_user, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";

export function limit_tests(ctx: SuiteContext): void {
  describe("client assertion jti replay", () => {
    test("a jti is accepted once per client until it expires", async () => {
      const store = ctx.store();
      const jti = uid("jti");
      expect(await store.use_jti("client-a", jti, T0 + 60, T0)).toBe(true);
      expect(await store.use_jti("client-a", jti, T0 + 60, T0 + 1)).toBe(false);
      expect(await store.use_jti("client-b", jti, T0 + 60, T0 + 1)).toBe(true);
      expect(await store.use_jti("client-a", jti, T0 + 200, T0 + 60)).toBe(true);
      expect(await store.use_jti("client-a", jti, T0 + 200, T0 + 61)).toBe(false);
    });

    test("concurrent uses of one jti on two instances: exactly one accepted", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const jti = uid("jti");
      const results = await concurrently(20, (i) => (i % 2 ? other : store).use_jti("client-a", jti, T0 + 60, T0));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });

  describe("rate-limit counters", () => {
    test("hit counts within a fixed window and starts a new one after reset_at", async () => {
      const store = ctx.store();
      const key = uid("login:ip");
      expect(await store.get_counter(key)).toBeNull();
      expect(await store.hit(key, 60, T0)).toEqual({ count: 1, reset_at: T0 + 60 });
      expect(await store.hit(key, 60, T0 + 30)).toEqual({ count: 2, reset_at: T0 + 60 });
      expect(await store.get_counter(key)).toEqual({ count: 2, reset_at: T0 + 60 });
      expect(await store.hit(key, 60, T0 + 60)).toEqual({ count: 1, reset_at: T0 + 120 });
      await store.reset_counter(key);
      expect(await store.get_counter(key)).toBeNull();
      expect(await store.hit(key, 10, T0 + 61)).toEqual({ count: 1, reset_at: T0 + 71 });
      await store.reset_counter(uid("never-hit"));
    });

    test("concurrent hits from two instances are all counted", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const key = uid("burst");
      const results = await concurrently(20, (i) => (i % 2 ? other : store).hit(key, 60, T0));
      expect(results.map((r) => r.count).toSorted((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await store.get_counter(key)).toEqual({ count: 20, reset_at: T0 + 60 });
    });

    test("reserve counts only below the limit; a full window refuses with its reset_at; the window resets", async () => {
      const store = ctx.store();
      const key = uid("reserve");
      expect(await store.reserve(key, 2, 60, T0)).toEqual({ allowed: true, count: 1, reset_at: T0 + 60 });
      expect(await store.reserve(key, 2, 60, T0 + 10)).toEqual({ allowed: true, count: 2, reset_at: T0 + 60 });
      expect(await store.reserve(key, 2, 60, T0 + 20)).toEqual({ allowed: false, count: 2, reset_at: T0 + 60 });
      expect(await store.get_counter(key)).toEqual({ count: 2, reset_at: T0 + 60 });
      // A release gives one back, in its own window only.
      await store.release(key, T0 + 60);
      expect(await store.reserve(key, 2, 60, T0 + 30)).toEqual({ allowed: true, count: 2, reset_at: T0 + 60 });
      expect(await store.reserve(key, 2, 60, T0 + 59)).toMatchObject({ allowed: false });
      // The window ends: a new one starts with this reservation; a late release of the old window does nothing.
      expect(await store.reserve(key, 2, 60, T0 + 60)).toEqual({ allowed: true, count: 1, reset_at: T0 + 120 });
      await store.release(key, T0 + 60);
      expect(await store.get_counter(key)).toEqual({ count: 1, reset_at: T0 + 120 });
      await store.release(key, T0 + 120);
      await store.release(key, T0 + 120);
      expect(await store.get_counter(key)).toEqual({ count: 0, reset_at: T0 + 120 });
      await store.release(uid("never-reserved"), T0);
    });

    test("reserve and hit share one counter: hits count against the limit", async () => {
      const store = ctx.store();
      const key = uid("shared");
      await store.hit(key, 60, T0);
      await store.hit(key, 60, T0);
      expect(await store.reserve(key, 3, 60, T0)).toEqual({ allowed: true, count: 3, reset_at: T0 + 60 });
      expect(await store.reserve(key, 3, 60, T0)).toEqual({ allowed: false, count: 3, reset_at: T0 + 60 });
    });

    test("concurrent reservations on two instances never exceed the limit", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const key = uid("race");
      const results = await concurrently(40, (i) => (i % 2 ? other : store).reserve(key, 7, 60, T0));
      const allowed = results.filter((r) => r.allowed);
      expect(allowed).toHaveLength(7);
      expect(allowed.map((r) => r.count).toSorted((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      for (const refused of results.filter((r) => !r.allowed)) expect(refused).toEqual({ allowed: false, count: 7, reset_at: T0 + 60 });
      expect(await store.get_counter(key)).toEqual({ count: 7, reset_at: T0 + 60 });
    });

    test("concurrent reservations at a window's end: at most the limit in the new window", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const key = uid("race-reset");
      for (let i = 0; i < 3; i++) await store.reserve(key, 3, 60, T0);
      const results = await concurrently(30, (i) => (i % 2 ? other : store).reserve(key, 3, 60, T0 + 60));
      expect(results.filter((r) => r.allowed)).toHaveLength(3);
      expect(await store.get_counter(key)).toEqual({ count: 3, reset_at: T0 + 120 });
    });
  });

  describe("audit events", () => {
    test("add_audit_event, list_audit_events filters newest first, purge_audit_events", async () => {
      await ctx.withFresh(async (store) => {
        const login = await store.add_audit_event({ at: T0, type: "login", outcome: "success", user_id: "u1", ip: "192.0.2.1", details: { amr: ["pwd"] } });
        expect(login).toEqual({ id: login.id, at: T0, type: "login", outcome: "success", user_id: "u1", client_id: null, ip: "192.0.2.1", details: { amr: ["pwd"] } });
        await store.add_audit_event({ at: T0 + 1, type: "token", outcome: "success", user_id: "u1", client_id: "c1" });
        await store.add_audit_event({ at: T0 + 2, type: "login", outcome: "failure", user_id: "u2" });
        const latest = await store.add_audit_event({ at: T0 + 2, type: "consent", outcome: "success", user_id: "u1", client_id: "c1" });
        expect(latest.id).toBeGreaterThan(login.id);

        const types = (events: { type: string; outcome: string }[]) => events.map((e) => `${e.type}:${e.outcome}`);
        expect(types(await store.list_audit_events())).toEqual(["consent:success", "login:failure", "token:success", "login:success"]);
        expect(types(await store.list_audit_events({ user_id: "u1" }))).toEqual(["consent:success", "token:success", "login:success"]);
        expect(types(await store.list_audit_events({ client_id: "c1", limit: 1 }))).toEqual(["consent:success"]);
        expect(types(await store.list_audit_events({ type: "login" }))).toEqual(["login:failure", "login:success"]);
        expect(types(await store.list_audit_events({ since: T0 + 1, user_id: "u1" }))).toEqual(["consent:success", "token:success"]);
        expect((await store.list_audit_events())[3]).toEqual(login);
        // Keyset pages: after (at, id) of the last event seen, in the same order; until is inclusive.
        const [first, second] = await store.list_audit_events({ limit: 2 });
        expect(types(await store.list_audit_events({ before: { at: second!.at, id: second!.id } }))).toEqual(["token:success", "login:success"]);
        expect(types(await store.list_audit_events({ before: { at: first!.at, id: first!.id }, limit: 1 }))).toEqual(["login:failure"]);
        expect(types(await store.list_audit_events({ until: T0 + 1 }))).toEqual(["token:success", "login:success"]);

        expect(await store.purge_audit_events(T0 + 2, 1)).toBe(2);
        expect(types(await store.list_audit_events())).toEqual(["consent:success", "login:failure"]);
      });
    });

    test("count_overview: users, live sessions, the day's sign-ins and failures", async () => {
      await ctx.withFresh(async (store) => {
        const alice = await seed_user(store);
        await seed_user(store);
        await store.create_session({ id_hash: uid("s"), user_id: alice.id, auth_time: T0, amr: ["pwd"], expires_at: T0 + 100 });
        await store.create_session({ id_hash: uid("s"), user_id: alice.id, auth_time: T0, amr: ["pwd"], expires_at: T0 - 1 });
        await store.add_audit_event({ at: T0 - 10, type: "login", outcome: "success", user_id: alice.id });
        await store.add_audit_event({ at: T0 + 1, type: "login", outcome: "success", user_id: alice.id });
        await store.add_audit_event({ at: T0 + 2, type: "login", outcome: "failure" });
        await store.add_audit_event({ at: T0 + 2, type: "login", outcome: "failure" });
        await store.add_audit_event({ at: T0 + 3, type: "logout", outcome: "success", user_id: alice.id });
        await store.create_group({ name: uid("group") });
        expect(await store.count_overview(T0, T0)).toEqual({ users: 2, clients: 0, groups: 1, active_sessions: 1, sign_ins: 1, failed_sign_ins: 2 });
      });
    });

    test("sign_in_stats: failures by application and address, the largest first; sign-ins per day", async () => {
      await ctx.withFresh(async (store) => {
        const DAY = 86_400;
        const failure = (at: number, client_id: string | null, ip: string | null) => store.add_audit_event({ at, type: "login", outcome: "failure", client_id, ip });
        await failure(T0 - 1, "old-app", "192.0.2.9"); // before the window
        await failure(T0, "app-a", "192.0.2.1");
        await failure(T0 + 5, "app-b", "192.0.2.1");
        await failure(T0 + 6, "app-b", "192.0.2.2");
        await failure(T0 + 7, "app-b", null);
        await failure(T0 + 8, null, "192.0.2.3");
        await store.add_audit_event({ at: T0 + 9, type: "logout", outcome: "failure", client_id: "app-c", ip: "192.0.2.1" });
        await store.add_audit_event({ at: T0 - DAY + 3, type: "login", outcome: "success", client_id: "app-a" });
        await store.add_audit_event({ at: T0 + 10, type: "login", outcome: "success", client_id: "app-a" });
        await store.add_audit_event({ at: T0 + 11, type: "login", outcome: "success", client_id: "app-a" });
        const stats = await store.sign_in_stats({ failures_since: T0, days_from: T0 - 2 * DAY, top: 2 });
        expect(stats.failed_by_client).toEqual([
          { key: "app-b", count: 3 },
          { key: "app-a", count: 1 },
        ]);
        expect(stats.failed_by_ip).toEqual([
          { key: "192.0.2.1", count: 2 },
          { key: "192.0.2.2", count: 1 },
        ]);
        expect(stats.days).toEqual([
          { day: 1, successes: 1, failures: 1 },
          { day: 2, successes: 2, failures: 5 },
        ]);
      });
    });
  });
}
