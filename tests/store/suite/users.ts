import { describe, expect, test } from "bun:test";
import { StoreConflictError, StoreReferenceError } from "../../../src/store/types.ts";
import { codeInput, concurrently, seedClient, seedUser, T0, tokenInput, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

export function userTests(ctx: SuiteContext): void {
  describe("users", () => {
    test("createUser fills defaults and getUserById returns every field", async () => {
      const store = ctx.store();
      const created = await store.createUser({
        username: uid("Ada"),
        password_hash: "$argon2id$hash",
        name: "Ada Lovelace",
        given_name: "Ada",
        family_name: "Lovelace",
        email: "ada@example.org",
        email_verified: true,
        phone_number: "+44 20 0000",
        address: { street_address: "1 Analytical St", locality: "London", country: "GB" },
        created_at: T0,
      });
      expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.updated_at).toBe(T0);
      expect(created.phone_number_verified).toBe(false);
      expect(created.picture).toBeNull();
      expect(created.totp_secret).toBeNull();
      expect(await store.getUserById(created.id)).toEqual(created);
      expect(await store.getUserById("no-such-user")).toBeNull();
    });

    test("getUserByUsername ignores case; usernames differing only in case conflict", async () => {
      const store = ctx.store();
      const name = uid("MixedCase");
      const user = await seedUser(store, name);
      expect((await store.getUserByUsername(name.toUpperCase()))?.id).toBe(user.id);
      expect((await store.getUserByUsername(name.toLowerCase()))?.username).toBe(name);
      expect(await store.getUserByUsername(uid("nobody"))).toBeNull();
      expect(await rejection(seedUser(store, name.toLowerCase()))).toBeInstanceOf(StoreConflictError);
    });

    test("createUser with an existing id conflicts", async () => {
      const store = ctx.store();
      const user = await seedUser(store);
      expect(await rejection(store.createUser({ id: user.id, username: uid("other"), password_hash: "x" }))).toBeInstanceOf(StoreConflictError);
    });

    test("listUsers orders by username, with limit and offset", async () => {
      await ctx.withFresh(async (store) => {
        for (const name of ["carol", "Alice", "bob"]) await seedUser(store, name);
        expect((await store.listUsers()).map((u) => u.username)).toEqual(["Alice", "bob", "carol"]);
        expect((await store.listUsers({ limit: 1, offset: 1 })).map((u) => u.username)).toEqual(["bob"]);
      });
    });

    test("updateUser changes only the patch, stamps updated_at, and keeps lookups in step", async () => {
      const store = ctx.store();
      const user = await store.createUser({ username: uid("before"), password_hash: "old", created_at: T0, email: "a@x" });
      const renamed = uid("After");
      const updated = await store.updateUser(user.id, {
        username: renamed,
        password_hash: "new",
        totp_secret: "BASE32SECRET",
        totp_enabled_at: T0 + 5,
        address: null,
        email_verified: true,
      });
      expect(updated).toMatchObject({ id: user.id, username: renamed, password_hash: "new", email: "a@x", email_verified: true, created_at: T0 });
      expect(updated!.updated_at).toBeGreaterThan(T0);
      expect(await store.getUserById(user.id)).toEqual(updated);
      expect((await store.getUserByUsername(renamed.toLowerCase()))?.id).toBe(user.id);
      expect(await store.getUserByUsername(user.username)).toBeNull();
      expect(await store.updateUser(user.id, { name: "N", updated_at: T0 + 9 })).toMatchObject({ name: "N", updated_at: T0 + 9 });
      expect(await store.updateUser("no-such-user", { name: "x" })).toBeNull();
    });

    test("updateUser to a taken username conflicts", async () => {
      const store = ctx.store();
      const a = await seedUser(store);
      const b = await seedUser(store);
      expect(await rejection(store.updateUser(b.id, { username: a.username.toUpperCase() }))).toBeInstanceOf(StoreConflictError);
    });

    test("deleteUser removes the user with sessions, grants, codes, tokens and recovery codes", async () => {
      const store = ctx.store();
      const user = await seedUser(store);
      const client = await seedClient(store);
      await store.createSession({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: ["pwd"], expires_at: T0 + 10 });
      await store.upsertGrant({ user_id: user.id, client_id: client.client_id, scopes: ["openid"] });
      const code = await store.insertCode(codeInput(user, client));
      const token = await store.insertToken(tokenInput(user, client));
      await store.setRecoveryCodes(user.id, ["r1"]);
      expect(await store.deleteUser(user.id)).toBe(true);
      expect(await store.getUserById(user.id)).toBeNull();
      expect(await store.listSessionsForUser(user.id)).toEqual([]);
      expect(await store.listGrantsForUser(user.id)).toEqual([]);
      expect(await store.getCode(code.code_hash)).toBeNull();
      expect(await store.getToken(token.token_hash)).toBeNull();
      expect(await store.countRecoveryCodes(user.id)).toBe(0);
      expect(await store.deleteUser(user.id)).toBe(false);
      expect(await store.getClient(client.client_id)).not.toBeNull();
    });
  });

  describe("recovery codes", () => {
    test("each code is accepted once; setRecoveryCodes replaces the set", async () => {
      const store = ctx.store();
      const user = await seedUser(store);
      await store.setRecoveryCodes(user.id, ["h1", "h2", "h3", "h3"]);
      expect(await store.countRecoveryCodes(user.id)).toBe(3);
      expect(await store.consumeRecoveryCode(user.id, "h2", T0)).toBe(true);
      expect(await store.consumeRecoveryCode(user.id, "h2", T0)).toBe(false);
      expect(await store.consumeRecoveryCode(user.id, "nope")).toBe(false);
      expect(await store.countRecoveryCodes(user.id)).toBe(2);
      const other = await seedUser(store);
      expect(await store.consumeRecoveryCode(other.id, "h1")).toBe(false);
      await store.setRecoveryCodes(user.id, ["n1", "n2"]);
      expect(await store.consumeRecoveryCode(user.id, "h1")).toBe(false);
      expect(await store.countRecoveryCodes(user.id)).toBe(2);
      await store.setRecoveryCodes(user.id, []);
      expect(await store.countRecoveryCodes(user.id)).toBe(0);
    });

    test("concurrent uses of one recovery code: exactly one succeeds", async () => {
      const store = ctx.store();
      const user = await seedUser(store);
      await store.setRecoveryCodes(user.id, ["once"]);
      const results = await concurrently(20, () => store.consumeRecoveryCode(user.id, "once"));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    test("setRecoveryCodes for an unknown user is a reference error", async () => {
      expect(await rejection(ctx.store().setRecoveryCodes(uid("ghost"), ["x"]))).toBeInstanceOf(StoreReferenceError);
    });
  });
}
