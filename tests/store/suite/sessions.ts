import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, StoreReferenceError } from "../../../src/store/types.ts";
import { concurrently, seed_client, seed_pair, seed_user, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

export function session_tests(ctx: SuiteContext): void {
  describe("sessions", () => {
    test("create, get, list, touch and delete", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const a = await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: ["pwd", "otp"], acr: "urn:mfa", expires_at: T0 + 100, created_at: T0 });
      const b = await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0 + 1, amr: ["pwd"], expires_at: T0 + 100, created_at: T0 + 1 });
      expect(a).toMatchObject({ last_seen_at: T0, acr: "urn:mfa" });
      expect(b.acr).toBeNull();
      expect(await store.get_session(a.id_hash)).toEqual(a);
      expect(await store.get_session(uid("s"))).toBeNull();
      expect(await store.list_sessions_for_user(user.id)).toEqual([a, b]);

      expect(await store.touch_session(a.id_hash, T0 + 50)).toBe(true);
      expect(await store.get_session(a.id_hash)).toMatchObject({ last_seen_at: T0 + 50, expires_at: T0 + 100 });
      expect(await store.touch_session(a.id_hash, T0 + 60, T0 + 200)).toBe(true);
      expect(await store.get_session(a.id_hash)).toMatchObject({ last_seen_at: T0 + 60, expires_at: T0 + 200 });
      expect(await store.touch_session(uid("s"), T0)).toBe(false);

      expect(await store.delete_session(a.id_hash)).toBe(true);
      expect(await store.delete_session(a.id_hash)).toBe(false);
      expect(await store.get_session(a.id_hash)).toBeNull();
    });

    test("delete_sessions_for_user removes only that user's sessions", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const other = await seed_user(store);
      for (let i = 0; i < 3; i++) await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: [], expires_at: T0 + 1 });
      const kept = await store.create_session({ id_hash: uid("s"), user_id: other.id, auth_time: T0, amr: [], expires_at: T0 + 1 });
      expect(await store.delete_sessions_for_user(user.id)).toBe(3);
      expect(await store.list_sessions_for_user(user.id)).toEqual([]);
      expect(await store.get_session(kept.id_hash)).toEqual(kept);
    });

    test("a session for an unknown user is a reference error; a duplicate id conflicts", async () => {
      const store = ctx.store();
      expect(await rejection(store.create_session({ id_hash: uid("s"), user_id: uid("ghost"), auth_time: T0, amr: [], expires_at: T0 }))).toBeInstanceOf(StoreReferenceError);
      const user = await seed_user(store);
      const s = await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: [], expires_at: T0 });
      expect(await rejection(store.create_session({ ...s }))).toBeInstanceOf(StoreConflictError);
    });
  });

  describe("session clients (back-channel logout)", () => {
    test("added once per client, listed in order, gone with the session", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const [b, a] = [await seed_client(store, uid("b-client")), await seed_client(store, uid("a-client"))];
      const session = await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: ["pwd"], expires_at: T0 + 100 });
      expect(await store.list_session_clients(session.id_hash)).toEqual([]);
      await store.add_session_client(session.id_hash, b.client_id, T0);
      await store.add_session_client(session.id_hash, a.client_id, T0);
      await store.add_session_client(session.id_hash, b.client_id, T0 + 1);
      expect(await store.list_session_clients(session.id_hash)).toEqual([a.client_id, b.client_id]);
      expect(await store.delete_session(session.id_hash)).toBe(true);
      expect(await store.list_session_clients(session.id_hash)).toEqual([]);
    });

    test("nothing is recorded for a session that is gone; a deleted client leaves the list", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const client = await seed_client(store);
      const gone = uid("s");
      await store.add_session_client(gone, client.client_id, T0);
      expect(await store.list_session_clients(gone)).toEqual([]);
      const session = await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: [], expires_at: T0 + 100 });
      await store.add_session_client(session.id_hash, client.client_id);
      expect(await store.delete_client(client.client_id)).toBe(true);
      expect(await store.list_session_clients(session.id_hash)).toEqual([]);
    });
  });

  describe("interactions", () => {
    test("create, get, update and delete", async () => {
      const store = ctx.store();
      const params = { client_id: "c", redirect_uri: "https://rp/cb", scope: "openid", state: "xyz", max_age: 0, prompt: ["login"] };
      const created = await store.create_interaction({ id: uid("i"), params, expires_at: T0 + 600, created_at: T0 });
      expect(created).toMatchObject({ session_id_hash: null, result: null });
      expect(await store.get_interaction(created.id)).toEqual(created);

      const updated = await store.update_interaction(created.id, { session_id_hash: "sess", result: { user_id: "u1", amr: ["pwd"], consented: true } });
      expect(updated).toMatchObject({ params, session_id_hash: "sess", result: { user_id: "u1", amr: ["pwd"], consented: true }, created_at: T0 });
      expect(await store.get_interaction(created.id)).toEqual(updated);
      expect(await store.update_interaction(created.id, {})).toEqual(updated);
      expect(await store.update_interaction(uid("i"), { result: null })).toBeNull();

      expect(await store.delete_interaction(created.id)).toBe(true);
      expect(await store.delete_interaction(created.id)).toBe(false);
      expect(await store.get_interaction(created.id)).toBeNull();
    });
  });

  describe("grants", () => {
    test("upsert_grant creates, then merges scopes keeping their order", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const first = await store.upsert_grant({ user_id: user.id, client_id: client.client_id, scopes: ["openid", "profile", "openid"], now: T0 });
      expect(first).toEqual({ user_id: user.id, client_id: client.client_id, scopes: ["openid", "profile"], claims: null, created_at: T0, updated_at: T0 });
      const merged = await store.upsert_grant({ user_id: user.id, client_id: client.client_id, scopes: ["email", "profile"], now: T0 + 5 });
      expect(merged).toMatchObject({ scopes: ["openid", "profile", "email"], created_at: T0, updated_at: T0 + 5 });
      expect(await store.get_grant(user.id, client.client_id)).toEqual(merged);
      expect(await store.get_grant(user.id, uid("none"))).toBeNull();
    });

    test("claims are kept when omitted and replaced when given", async () => {
      const store = ctx.store();
      const { user, client } = await seed_pair(store);
      const key = { user_id: user.id, client_id: client.client_id };
      await store.upsert_grant({ ...key, scopes: ["openid"], claims: { userinfo: { email: null } } });
      expect((await store.upsert_grant({ ...key, scopes: ["profile"] })).claims).toEqual({ userinfo: { email: null } });
      expect((await store.upsert_grant({ ...key, scopes: [], claims: null })).claims).toBeNull();
    });

    test("concurrent upserts lose no scope", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const { user, client } = await seed_pair(store);
      const scopes = Array.from({ length: 12 }, (_, i) => `s${i}`);
      await concurrently(scopes.length, (i) => (i % 2 ? other : store).upsert_grant({ user_id: user.id, client_id: client.client_id, scopes: [scopes[i]!] }));
      expect((await store.get_grant(user.id, client.client_id))?.scopes.toSorted()).toEqual(scopes.toSorted());
    });

    test("list_grants_for_user and delete_grant", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const c1 = await seed_client(store, uid("a"));
      const c2 = await seed_client(store, uid("b"));
      await store.upsert_grant({ user_id: user.id, client_id: c2.client_id, scopes: ["openid"] });
      await store.upsert_grant({ user_id: user.id, client_id: c1.client_id, scopes: ["openid"] });
      expect((await store.list_grants_for_user(user.id)).map((g) => g.client_id)).toEqual([c1.client_id, c2.client_id]);
      expect(await store.delete_grant(user.id, c1.client_id)).toBe(true);
      expect(await store.delete_grant(user.id, c1.client_id)).toBe(false);
      expect((await store.list_grants_for_user(user.id)).map((g) => g.client_id)).toEqual([c2.client_id]);
    });

    test("a grant for an unknown client is a reference error", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      expect(await rejection(store.upsert_grant({ user_id: user.id, client_id: uid("ghost"), scopes: [] }))).toBeInstanceOf(StoreReferenceError);
    });
  });
}
