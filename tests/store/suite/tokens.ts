import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError } from "../../../src/store/types.ts";
import { concurrently, seed_client, seed_pair, seed_user, T0, token_input, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { in_other_processes } from "./codes.ts";
import { rejection } from "../../helpers/settle.ts";

export function token_tests(ctx: SuiteContext): void {
  describe("tokens", () => {
    test("insert_token and get_token round-trip every field; client_credentials has no user", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const token = await store.insert_token(
        token_input(user, client, {
          kind: "refresh",
          family_id: "fam",
          session_id_hash: "sess",
          auth_time: T0,
          acr: "0",
          amr: ["pwd"],
          claims: { userinfo: { name: null } },
          nonce: "n",
          jkt: "thumbprint",
          resources: ["https://api.example/"],
          act: { sub: "actor" },
        }),
      );
      expect(token).toMatchObject({ revoked_at: null, rotated_at: null });
      expect(await store.get_token(token.token_hash)).toEqual(token);
      const machine = await store.insert_token(token_input(null, client));
      expect(await store.get_token(machine.token_hash)).toMatchObject({ user_id: null, amr: [], claims: null, auth_time: null });
      expect(await store.get_token(uid("tok"))).toBeNull();
      expect(await rejection(store.insert_token(token_input(user, client, { token_hash: token.token_hash })))).toBeInstanceOf(StoreConflictError);
    });

    test("revoke_token marks one token once", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const token = await store.insert_token(token_input(user, client));
      expect(await store.revoke_token(token.token_hash, T0 + 5)).toBe(true);
      expect(await store.revoke_token(token.token_hash, T0 + 6)).toBe(false);
      expect((await store.get_token(token.token_hash))?.revoked_at).toBe(T0 + 5);
      expect(await store.revoke_token(uid("tok"))).toBe(false);
    });

    test("revoke_by_grant, revoke_family, revoke_for_user_client and revoke_by_session revoke exactly their tokens", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const client = await seed_client(store);
      const other_client = await seed_client(store);
      const grant = uid("grant");
      const family = uid("fam");
      const session = uid("sess");
      const by_grant = [
        await store.insert_token(token_input(user, client, { grant_id: grant })),
        await store.insert_token(token_input(user, client, { grant_id: grant, kind: "refresh" })),
      ];
      const by_family = [1, 2, 3].map(() => token_input(user, other_client, { kind: "refresh", family_id: family }));
      for (const t of by_family) await store.insert_token(t);
      const by_session = await store.insert_token(token_input(user, other_client, { session_id_hash: session }));
      const untouched = await store.insert_token(token_input(null, client));

      expect(await store.revoke_by_grant(grant, T0)).toBe(2);
      expect(await store.revoke_by_grant(grant, T0)).toBe(0);
      expect(await store.revoke_family(family, T0)).toBe(3);
      expect(await store.revoke_by_session(session, T0)).toBe(1);
      for (const t of [...by_grant, ...by_family, by_session]) expect((await store.get_token(t.token_hash))?.revoked_at).toBe(T0);
      expect((await store.get_token(untouched.token_hash))?.revoked_at).toBeNull();

      const fresh = await store.insert_token(token_input(user, client));
      expect(await store.revoke_for_user_client(user.id, client.client_id, T0 + 1)).toBe(1);
      expect((await store.get_token(fresh.token_hash))?.revoked_at).toBe(T0 + 1);
      expect((await store.get_token(untouched.token_hash))?.revoked_at).toBeNull();
    });

    test("revoke_by_session with keep_offline_refresh keeps only the session's offline_access refresh tokens", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const session = uid("sess");
      const at = (scope: string, kind: "access" | "refresh") => store.insert_token(token_input(user, client, { session_id_hash: session, scope, kind }));
      const revoked = [
        await at("openid offline_access", "access"),
        await at("openid", "refresh"),
        await at("openid offline_accessx", "refresh"),
        await at("openid offlineXaccess", "refresh"),
      ];
      const kept = [await at("offline_access", "refresh"), await at("openid offline_access email", "refresh")];
      expect(await store.revoke_by_session(session, T0, { keep_offline_refresh: true })).toBe(revoked.length);
      for (const t of revoked) expect((await store.get_token(t.token_hash))?.revoked_at).toBe(T0);
      for (const t of kept) expect((await store.get_token(t.token_hash))?.revoked_at).toBeNull();
      expect(await store.revoke_by_session(session, T0 + 1)).toBe(kept.length);
    });
  });

  describe("refresh token rotation", () => {
    test("ok once, then reused (the caller revokes the family)", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const family = uid("fam");
      const old = await store.insert_token(token_input(user, client, { kind: "refresh", family_id: family }));
      const first = await store.rotate_refresh_token(old.token_hash, T0 + 10);
      expect(first).toEqual({ status: "ok", token: { ...old, rotated_at: T0 + 10 } });
      const successor = await store.insert_token(token_input(user, client, { kind: "refresh", family_id: family }));
      const replay = await store.rotate_refresh_token(old.token_hash, T0 + 20);
      expect(replay.status).toBe("reused");
      if (replay.status === "reused") expect(replay.token.family_id).toBe(family);
      expect(await store.revoke_family(family, T0 + 20)).toBe(2);
      expect((await store.rotate_refresh_token(successor.token_hash, T0 + 21)).status).toBe("revoked");
    });

    test("expired, revoked, unknown and access tokens do not rotate", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const expiring = await store.insert_token(token_input(user, client, { kind: "refresh", expires_at: T0 + 100 }));
      expect((await store.rotate_refresh_token(expiring.token_hash, T0 + 100)).status).toBe("expired");
      const revoked = await store.insert_token(token_input(user, client, { kind: "refresh" }));
      await store.revoke_token(revoked.token_hash, T0);
      expect((await store.rotate_refresh_token(revoked.token_hash, T0 + 1)).status).toBe("revoked");
      const access = await store.insert_token(token_input(user, client, { kind: "access" }));
      expect(await store.rotate_refresh_token(access.token_hash, T0 + 1)).toEqual({ status: "not_found" });
      expect(await store.rotate_refresh_token(uid("tok"), T0)).toEqual({ status: "not_found" });
    });

    test("20 concurrent rotations of one token, on two instances: exactly one ok", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const { user, client } = await seed_pair(store);
      const token = await store.insert_token(token_input(user, client, { kind: "refresh", family_id: uid("fam") }));
      const results = await concurrently(20, (i) => (i % 2 ? other : store).rotate_refresh_token(token.token_hash, T0 + 1));
      expect(results.filter((r) => r.status === "ok")).toHaveLength(1);
      expect(results.filter((r) => r.status === "reused")).toHaveLength(19);
    });

    test("concurrent rotations from separate processes: exactly one ok", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const token = await store.insert_token(token_input(user, client, { kind: "refresh" }));
      const statuses = await in_other_processes(ctx.target().url, "refresh", token.token_hash, 2, 5, T0 + 1);
      expect(statuses.filter((s) => s === "ok")).toHaveLength(1);
      expect(statuses.filter((s) => s === "reused")).toHaveLength(9);
    }, 30_000);
  });
}
