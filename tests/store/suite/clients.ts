import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError } from "../../../src/store/types.ts";
import { code_input, concurrently, seed_client, seed_user, T0, token_input, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

export function client_tests(ctx: SuiteContext): void {
  describe("clients", () => {
    test("create_client stores metadata as given, unknown members included", async () => {
      const store = ctx.store();
      const metadata = {
        client_name: "Photos",
        redirect_uris: ["https://photos.example/cb", "https://photos.example/cb2"],
        grant_types: ["authorization_code", "refresh_token"],
        token_endpoint_auth_method: "client_secret_basic",
        skip_consent: true,
        default_max_age: 3600,
        jwks: { keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y" }] },
        "x-vendor": { nested: [1, "two", null, false] },
      };
      const created = await store.create_client({
        client_id: uid("c"),
        client_secret_hash: "sha256-of-secret",
        registration_access_token_hash: uid("rat"),
        metadata,
        created_at: T0,
      });
      expect(created).toMatchObject({ client_secret_expires_at: 0, client_id_issued_at: T0, updated_at: T0 });
      const read = await store.get_client(created.client_id);
      expect(read).toEqual(created);
      expect(read?.metadata).toEqual(metadata);
      expect(await store.get_client(uid("none"))).toBeNull();
    });

    test("a duplicate client_id conflicts", async () => {
      const store = ctx.store();
      const client = await seed_client(store);
      expect(await rejection(seed_client(store, client.client_id))).toBeInstanceOf(StoreConflictError);
    });

    test("update_client replaces metadata and secrets; unknown client gives null", async () => {
      const store = ctx.store();
      const client = await seed_client(store);
      const updated = await store.update_client(client.client_id, {
        metadata: { client_name: "Renamed", redirect_uris: ["https://new.example/cb"] },
        client_secret_hash: "rotated",
        client_secret_expires_at: T0 + 100,
      });
      expect(updated?.metadata).toEqual({ client_name: "Renamed", redirect_uris: ["https://new.example/cb"] });
      expect(updated).toMatchObject({ client_secret_hash: "rotated", client_secret_expires_at: T0 + 100, created_at: client.created_at });
      expect(await store.get_client(client.client_id)).toEqual(updated);
      const cleared = await store.update_client(client.client_id, { client_secret_hash: null });
      expect(cleared?.client_secret_hash).toBeNull();
      expect(cleared?.metadata.client_name).toBe("Renamed");
      expect(await store.update_client(uid("none"), { client_secret_hash: "x" })).toBeNull();
    });

    test("if_version (migration 020): a compare-and-set update or delete writes only at the version read; of concurrent ones from two instances exactly one wins", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const client = await seed_client(store);
      expect(client.version).toBe(0);
      const results = await concurrently(10, (i) => (i % 2 ? other : store).update_client(client.client_id, { metadata: { client_name: `Writer ${i}` } }, { if_version: 0 }));
      const won = results.filter((r) => r !== null);
      expect(won).toHaveLength(1);
      expect(won[0]!.version).toBe(1);
      expect(await store.get_client(client.client_id)).toEqual(won[0]!);
      expect((await store.update_client(client.client_id, { client_secret_hash: null }))!.version).toBe(2);
      expect(await store.delete_client(client.client_id, { if_version: 1 })).toBe(false);
      expect(await store.delete_client(client.client_id, { if_version: 2 })).toBe(true);
      expect(await store.get_client(client.client_id)).toBeNull();
    });

    test("a new client's secret is dated; update_client keeps a previous secret with its expiry", async () => {
      const store = ctx.store();
      const created = await store.create_client({ client_id: uid("c"), client_secret_hash: "first", metadata: {}, created_at: T0 });
      expect(created).toMatchObject({ client_secret_created_at: T0, client_secret_used_at: null, previous_secret_hash: null, previous_secret_expires_at: null });
      const public_one = await store.create_client({ client_id: uid("c"), metadata: {}, created_at: T0 });
      expect(public_one.client_secret_created_at).toBeNull();
      const rotated = await store.update_client(created.client_id, {
        client_secret_hash: "second",
        client_secret_created_at: T0 + 10,
        previous_secret_hash: "first",
        previous_secret_expires_at: T0 + 3610,
        previous_secret_created_at: T0,
        previous_secret_used_at: T0 + 5,
      });
      expect(await store.get_client(created.client_id)).toEqual(rotated);
      expect(rotated).toMatchObject({ previous_secret_hash: "first", previous_secret_expires_at: T0 + 3610, previous_secret_created_at: T0, previous_secret_used_at: T0 + 5 });
    });

    test("note_client_secret_use dates the secret that was used, and changes nothing else", async () => {
      const store = ctx.store();
      const client = await store.create_client({
        client_id: uid("c"),
        client_secret_hash: "new",
        metadata: {},
        created_at: T0,
        previous_secret_hash: "old",
        previous_secret_expires_at: T0 + 100,
      });
      await store.note_client_secret_use(client.client_id, "new", T0 + 1);
      expect(await store.get_client(client.client_id)).toEqual({ ...client, client_secret_used_at: T0 + 1 });
      await store.note_client_secret_use(client.client_id, "old", T0 + 2);
      expect(await store.get_client(client.client_id)).toEqual({ ...client, client_secret_used_at: T0 + 1, previous_secret_used_at: T0 + 2 });
      // A hash neither secret has (rotated in between): nothing changes.
      await store.note_client_secret_use(client.client_id, "gone", T0 + 3);
      expect((await store.get_client(client.client_id))!.updated_at).toBe(T0);
      expect((await store.get_client(client.client_id))!.client_secret_used_at).toBe(T0 + 1);
    });

    test("get_client_by_registration_token_hash finds the client (RFC 7592)", async () => {
      const store = ctx.store();
      const hash = uid("rat");
      const client = await store.create_client({ client_id: uid("c"), registration_access_token_hash: hash, metadata: {} });
      expect((await store.get_client_by_registration_token_hash(hash))?.client_id).toBe(client.client_id);
      expect(await store.get_client_by_registration_token_hash(uid("rat"))).toBeNull();
      expect(await rejection(store.create_client({ client_id: uid("c"), registration_access_token_hash: hash, metadata: {} }))).toBeInstanceOf(StoreConflictError);
    });

    test("list_clients orders by client_id, with limit and offset", async () => {
      await ctx.withFresh(async (store) => {
        for (const id of ["c3", "c1", "c2"]) await seed_client(store, id);
        expect((await store.list_clients()).map((c) => c.client_id)).toEqual(["c1", "c2", "c3"]);
        expect((await store.list_clients({ limit: 2, offset: 1 })).map((c) => c.client_id)).toEqual(["c2", "c3"]);
      });
    });

    test("delete_client removes its grants, codes and tokens, not the user", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const client = await seed_client(store);
      await store.upsert_grant({ user_id: user.id, client_id: client.client_id, scopes: ["openid"] });
      const code = await store.insert_code(code_input(user, client));
      const token = await store.insert_token(token_input(null, client));
      expect(await store.delete_client(client.client_id)).toBe(true);
      expect(await store.get_client(client.client_id)).toBeNull();
      expect(await store.get_grant(user.id, client.client_id)).toBeNull();
      expect(await store.get_code(code.code_hash)).toBeNull();
      expect(await store.get_token(token.token_hash)).toBeNull();
      expect(await store.get_user_by_id(user.id)).not.toBeNull();
      expect(await store.delete_client(client.client_id)).toBe(false);
    });

    test("a new client is not anonymous and never used unless said; mark_client_used sets the first use once", async () => {
      const store = ctx.store();
      const operator_made = await seed_client(store);
      expect(operator_made).toMatchObject({ anonymous: false, first_used_at: null });
      const client = await store.create_client({ client_id: uid("c"), metadata: {}, anonymous: true, created_at: T0 });
      expect(await store.get_client(client.client_id)).toMatchObject({ anonymous: true, first_used_at: null });
      expect(await store.mark_client_used(client.client_id, T0 + 10)).toBe(true);
      // Only while none is recorded: a later use changes nothing.
      expect(await store.mark_client_used(client.client_id, T0 + 20)).toBe(false);
      expect(await store.get_client(client.client_id)).toMatchObject({ anonymous: true, first_used_at: T0 + 10 });
      expect(await store.mark_client_used(uid("none"), T0)).toBe(false);
    });

    test("concurrent first uses from two instances: exactly one records it", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const client = await store.create_client({ client_id: uid("c"), metadata: {}, anonymous: true });
      const set = await Promise.all([1, 2, 3, 4].map((i) => (i % 2 === 0 ? store : other).mark_client_used(client.client_id, T0 + i)));
      expect(set.filter(Boolean)).toHaveLength(1);
      expect((await store.get_client(client.client_id))?.first_used_at).toBe(T0 + 1 + set.indexOf(true));
    });

    test("delete_unused_clients: anonymous, never used, registered by the cut-off; oldest first, bounded; their grants and codes go", async () => {
      await ctx.withFresh(async (store) => {
        const user = await seed_user(store);
        const before = T0 + 1000;
        const make = (client_id: string, created_at: number, anonymous: boolean) => store.create_client({ client_id, metadata: { client_name: client_id }, anonymous, created_at });
        await make("old-b", T0 + 5, true);
        await make("old-a", T0 + 5, true);
        await make("older", T0, true);
        await make("at-cut-off", before, true);
        await make("recent", before + 1, true);
        await make("operator", T0, false);
        await make("used", T0, true);
        await store.mark_client_used("used", T0 + 1);
        const code = await store.insert_code(code_input(user, (await store.get_client("older"))!));
        await store.upsert_grant({ user_id: user.id, client_id: "older", scopes: ["openid"] });

        const first = await store.delete_unused_clients(before, 2);
        expect(first.map((c) => c.client_id)).toEqual(["older", "old-a"]);
        expect(first[0]).toMatchObject({ anonymous: true, first_used_at: null, created_at: T0, metadata: { client_name: "older" } });
        const second = await store.delete_unused_clients(before, 10);
        expect(second.map((c) => c.client_id)).toEqual(["old-b", "at-cut-off"]);
        expect(await store.delete_unused_clients(before, 10)).toEqual([]);
        expect((await store.list_clients()).map((c) => c.client_id)).toEqual(["operator", "recent", "used"]);
        expect(await store.get_code(code.code_hash)).toBeNull();
        expect(await store.get_grant(user.id, "older")).toBeNull();
      });
    });
  });
}
