import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError } from "../../../src/store/types.ts";
import { rejection } from "../../helpers/settle.ts";
import { concurrently, seed_client, seed_pair, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";

export function device_authorization_tests(ctx: SuiteContext): void {
  describe("device authorizations (RFC 8628)", () => {
    const input = (client_id: string, extra: { expires_at?: number; poll_interval?: number } = {}) => ({
      device_code_hash: uid("dc"),
      user_code_hash: uid("uc"),
      client_id,
      scope: "openid offline_access",
      grant_id: uid("grant"),
      poll_interval: extra.poll_interval ?? 5,
      expires_at: extra.expires_at ?? T0 + 600,
      created_at: T0,
    });

    test("a new authorization is pending, found by its user code until it expires; user codes are unique", async () => {
      const store = ctx.store();
      const client = await seed_client(store);
      const row = await store.insert_device_authorization({ ...input(client.client_id), claims: { userinfo: { email: null } } });
      expect(row.status).toBe("pending");
      expect(await store.find_device_authorization(row.user_code_hash, T0 + 1)).toEqual(row);
      expect(await store.find_device_authorization(row.user_code_hash, T0 + 600)).toBeNull();
      expect(await store.find_device_authorization(uid("uc"), T0 + 1)).toBeNull();
      // A user code taken by a live authorization: start_device_authorization draws another.
      expect(await rejection(store.insert_device_authorization({ ...input(client.client_id), user_code_hash: row.user_code_hash }))).toBeInstanceOf(StoreConflictError);
    });

    test("polling: pending, slow_down raises the interval by 5 seconds, approval redeemed once, then used", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const row = await store.insert_device_authorization(input(client.client_id));
      const first = await store.poll_device_authorization(row.device_code_hash, client.client_id, T0 + 10);
      expect(first).toMatchObject({ status: "pending", slow_down: false });
      // RFC 8628 §3.5: polled sooner than the interval.
      const fast = await store.poll_device_authorization(row.device_code_hash, client.client_id, T0 + 12);
      expect(fast).toMatchObject({ status: "pending", slow_down: true, authorization: { poll_interval: 10 } });
      expect(await store.poll_device_authorization(row.device_code_hash, client.client_id, T0 + 20)).toMatchObject({ status: "pending", slow_down: true });
      expect(await store.poll_device_authorization(row.device_code_hash, client.client_id, T0 + 40)).toMatchObject({
        status: "pending",
        slow_down: false,
        authorization: { poll_interval: 15 },
      });
      // Another client's poll finds nothing.
      const other = await seed_client(store);
      expect(await store.poll_device_authorization(row.device_code_hash, other.client_id, T0 + 60)).toEqual({ status: "not_found" });

      const approval = { user_id: user.id, session_id_hash: null, auth_time: T0 + 30, amr: ["pwd", "otp"], acr: null };
      expect(await store.decide_device_authorization(row.device_code_hash, { status: "approved", approval }, T0 + 45)).toBe(true);
      // Decided once.
      expect(await store.decide_device_authorization(row.device_code_hash, { status: "denied" }, T0 + 46)).toBe(false);
      const redeemed = await store.poll_device_authorization(row.device_code_hash, client.client_id, T0 + 60);
      expect(redeemed).toMatchObject({
        status: "approved",
        authorization: { status: "used", user_id: user.id, auth_time: T0 + 30, amr: ["pwd", "otp"], acr: null, scope: "openid offline_access", grant_id: row.grant_id },
      });
      expect(await store.poll_device_authorization(row.device_code_hash, client.client_id, T0 + 80)).toMatchObject({ status: "used" });
    });

    test("denied stays denied; an undecided authorization expires; expired ones cannot be decided", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const denied = await store.insert_device_authorization(input(client.client_id));
      expect(await store.decide_device_authorization(denied.device_code_hash, { status: "denied" }, T0 + 1)).toBe(true);
      expect(await store.poll_device_authorization(denied.device_code_hash, client.client_id, T0 + 10)).toMatchObject({ status: "denied" });
      const late = await store.insert_device_authorization(input(client.client_id, { expires_at: T0 + 60 }));
      const approval = { user_id: user.id, session_id_hash: null, auth_time: T0, amr: ["pwd"], acr: null };
      expect(await store.decide_device_authorization(late.device_code_hash, { status: "approved", approval }, T0 + 60)).toBe(false);
      expect(await store.poll_device_authorization(late.device_code_hash, client.client_id, T0 + 60)).toMatchObject({ status: "expired" });
      expect(await store.poll_device_authorization(uid("dc"), client.client_id, T0)).toEqual({ status: "not_found" });
    });

    test("of concurrent polls of an approved authorization from two instances exactly one redeems it", async () => {
      const store = ctx.store();
      const second = await ctx.second();
      const { user, client } = await seed_pair(store);
      const row = await store.insert_device_authorization(input(client.client_id, { poll_interval: 0 }));
      await store.decide_device_authorization(
        row.device_code_hash,
        { status: "approved", approval: { user_id: user.id, session_id_hash: null, auth_time: T0, amr: ["pwd"], acr: null } },
        T0 + 1,
      );
      const results = await concurrently(8, (i) => (i % 2 === 0 ? store : second).poll_device_authorization(row.device_code_hash, client.client_id, T0 + 2));
      expect(results.filter((r) => r.status === "approved")).toHaveLength(1);
      expect(results.filter((r) => r.status === "used")).toHaveLength(7);
    });

    test("purge deletes expired authorizations; they go with their client", async () => {
      const store = ctx.store();
      const client = await seed_client(store);
      const expired = await store.insert_device_authorization(input(client.client_id, { expires_at: T0 + 10 }));
      const live = await store.insert_device_authorization(input(client.client_id, { expires_at: T0 + 10_000 }));
      expect((await store.purge_expired(T0 + 20)).device_authorizations).toBeGreaterThanOrEqual(1);
      expect(await store.poll_device_authorization(expired.device_code_hash, client.client_id, T0)).toEqual({ status: "not_found" });
      expect(await store.find_device_authorization(live.user_code_hash, T0 + 20)).not.toBeNull();
      await store.delete_client(client.client_id);
      expect(await store.find_device_authorization(live.user_code_hash, T0 + 20)).toBeNull();
    });
  });
}
