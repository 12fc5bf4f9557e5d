import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, StoreError, StoreReferenceError, type Store, type UserRow } from "../../../src/store/types.ts";
import { concurrently, seed_client, seed_user, T0, token_input, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

async function token(
  store: Store,
  user: UserRow,
  overrides: { purpose?: "password_reset" | "email_verification" | "invitation" | "email_change"; email?: string | null; expires_at?: number } = {},
  replace = false,
) {
  const row = {
    token_hash: uid("ut"),
    user_id: user.id,
    purpose: overrides.purpose ?? ("password_reset" as const),
    email: overrides.email === undefined ? "ada@example.org" : overrides.email,
    created_at: T0,
    expires_at: overrides.expires_at ?? T0 + 1800,
  };
  await store.create_user_token(row, { replace });
  return row;
}

export function user_token_tests(ctx: SuiteContext): void {
  describe("user tokens", () => {
    test("find_user_token returns a live token of its purpose only, and consumes nothing", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const row = await token(store, user);
      expect(await store.find_user_token(row.token_hash, "password_reset", T0 + 1)).toEqual(row);
      expect(await store.find_user_token(row.token_hash, "password_reset", T0 + 1)).toEqual(row);
      expect(await store.find_user_token(row.token_hash, "email_verification", T0 + 1)).toBeNull();
      // Expired at expires_at, like every other expiry of the store.
      expect(await store.find_user_token(row.token_hash, "password_reset", T0 + 1800)).toBeNull();
      expect(await store.find_user_token(uid("nope"), "password_reset", T0)).toBeNull();
    });

    test("created_at defaults to now; email may be null", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const before = Math.floor(Date.now() / 1000);
      const hash = uid("ut");
      await store.create_user_token({ token_hash: hash, user_id: user.id, purpose: "invitation", email: null, expires_at: before + 60 });
      const found = await store.find_user_token(hash, "invitation", before);
      expect(found?.email).toBeNull();
      expect(found!.created_at).toBeGreaterThanOrEqual(before);
      expect(found!.created_at).toBeLessThanOrEqual(before + 5);
    });

    test("consume_user_token is single use and refuses an expired or wrong-purpose token without using it", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const row = await token(store, user, { purpose: "email_verification" });
      expect(await store.consume_user_token(row.token_hash, "password_reset", T0 + 1)).toBeNull();
      expect(await store.consume_user_token(row.token_hash, "email_verification", T0 + 1800)).toBeNull();
      expect(await store.consume_user_token(row.token_hash, "email_verification", T0 + 1)).toEqual(row);
      expect(await store.consume_user_token(row.token_hash, "email_verification", T0 + 1)).toBeNull();
      expect(await store.find_user_token(row.token_hash, "email_verification", T0 + 1)).toBeNull();
    });

    test("concurrent redemptions of one token: exactly one gets it (two instances)", async () => {
      const store = ctx.store();
      const other = await ctx.second();
      const user = await seed_user(store);
      const row = await token(store, user);
      const results = await concurrently(8, (i) => (i % 2 ? other : store).consume_user_token(row.token_hash, "password_reset", T0 + 1));
      expect(results.filter((r) => r !== null)).toEqual([row]);
    });

    test("replace voids the user's older tokens of that purpose only", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const someone = await seed_user(store);
      const old_reset = await token(store, user);
      const verification = await token(store, user, { purpose: "email_verification" });
      const theirs = await token(store, someone);
      const kept = await token(store, user); // without replace, both live
      expect(await store.find_user_token(old_reset.token_hash, "password_reset", T0)).not.toBeNull();
      const newer = await token(store, user, {}, true);
      expect(await store.find_user_token(old_reset.token_hash, "password_reset", T0)).toBeNull();
      expect(await store.find_user_token(kept.token_hash, "password_reset", T0)).toBeNull();
      expect(await store.find_user_token(newer.token_hash, "password_reset", T0)).toEqual(newer);
      expect(await store.find_user_token(verification.token_hash, "email_verification", T0)).toEqual(verification);
      expect(await store.find_user_token(theirs.token_hash, "password_reset", T0)).toEqual(theirs);
    });

    test("delete_user_tokens voids one purpose or all, and counts", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      await token(store, user);
      await token(store, user);
      const verification = await token(store, user, { purpose: "email_verification" });
      await token(store, user, { purpose: "email_change" });
      expect(await store.delete_user_tokens(user.id, "password_reset")).toBe(2);
      expect(await store.delete_user_tokens(user.id, "password_reset")).toBe(0);
      expect(await store.find_user_token(verification.token_hash, "email_verification", T0)).toEqual(verification);
      expect(await store.delete_user_tokens(user.id)).toBe(2);
      expect(await store.delete_user_tokens(uid("nobody"))).toBe(0);
    });

    test("tokens go with their user; a token for no user, a taken hash or an unknown purpose is refused", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const row = await token(store, user);
      expect(await rejection(store.create_user_token({ ...row }))).toBeInstanceOf(StoreConflictError);
      expect(await rejection(store.create_user_token({ ...row, token_hash: uid("ut"), user_id: uid("nobody") }))).toBeInstanceOf(StoreReferenceError);
      const bad = await rejection(store.create_user_token({ ...row, token_hash: uid("ut"), purpose: "login" as never }));
      expect(bad).toBeInstanceOf(StoreError);
      expect(bad.message).toContain('purpose "login"');
      expect(await store.delete_user(user.id)).toBe(true);
      expect(await store.find_user_token(row.token_hash, "password_reset", T0)).toBeNull();
    });

    test("revoke_for_user revokes every token of the user, any client or session, and nobody else's", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const other = await seed_user(store);
      const [a, b] = [await seed_client(store), await seed_client(store)];
      const mine = [
        await store.insert_token(token_input(user, a, { kind: "refresh", scope: "openid offline_access" })),
        await store.insert_token(token_input(user, b, { session_id_hash: uid("sess") })),
        await store.insert_token(token_input(user, b, { kind: "refresh", family_id: uid("fam") })),
      ];
      const theirs = await store.insert_token(token_input(other, a));
      const client_only = await store.insert_token(token_input(null, a));
      expect(await store.revoke_for_user(user.id, T0 + 5)).toBe(3);
      expect(await store.revoke_for_user(user.id, T0 + 6)).toBe(0);
      for (const t of mine) expect((await store.get_token(t.token_hash))?.revoked_at).toBe(T0 + 5);
      expect((await store.get_token(theirs.token_hash))?.revoked_at).toBeNull();
      expect((await store.get_token(client_only.token_hash))?.revoked_at).toBeNull();
    });

    test("users have a status: active by default, settable, unknown values refused", async () => {
      const store = ctx.store();
      const active = await seed_user(store);
      expect(active.status).toBe("active");
      expect((await store.get_user_by_id(active.id))?.status).toBe("active");
      const invited = await store.create_user({ username: uid("inv"), password_hash: "", status: "invited" });
      expect(await store.get_user_by_username(invited.username)).toMatchObject({ status: "invited", password_hash: "" });
      expect((await store.update_user(invited.id, { status: "disabled" }))?.status).toBe("disabled");
      expect((await store.get_user_by_id(invited.id))?.status).toBe("disabled");
      expect(await rejection(store.update_user(invited.id, { status: "banned" as never }))).toBeInstanceOf(StoreError);
      expect(await rejection(store.create_user({ username: uid("x"), password_hash: "", status: "gone" as never }))).toBeInstanceOf(StoreError);
      expect((await store.get_user_by_id(invited.id))?.status).toBe("disabled");
    });
  });
}
