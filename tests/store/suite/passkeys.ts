import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, type Store, type UserRow } from "../../../src/store/types.ts";
import { seed_user, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

function passkey_input(user: UserRow, overrides: Record<string, unknown> = {}) {
  return {
    credential_id: uid("cred"),
    user_id: user.id,
    public_key: "pQECAyYgASFYIA",
    counter: 0,
    transports: ["internal", "hybrid"],
    backup_eligible: true,
    backup_state: false,
    aaguid: "00000000-0000-0000-0000-000000000000",
    name: "Laptop",
    ...overrides,
  };
}

export function passkey_tests(ctx: SuiteContext): void {
  describe("passkeys", () => {
    const store = (): Store => ctx.store();

    test("create, find by credential id, list oldest first, count; a credential id is unique", async () => {
      const user = await seed_user(store());
      const first = await store().create_passkey({ ...passkey_input(user), created_at: T0 });
      const second = await store().create_passkey({ ...passkey_input(user, { name: "Phone", transports: [] }), created_at: T0 + 5 });
      expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(first.last_used_at).toBeNull();
      expect(await store().get_passkey_by_credential_id(first.credential_id)).toEqual(first);
      expect(await store().get_passkey_by_credential_id("nope")).toBeNull();
      expect((await store().list_passkeys_for_user(user.id)).map((p) => p.name)).toEqual(["Laptop", "Phone"]);
      expect(await store().count_passkeys_for_user(user.id)).toBe(2);
      const other = await seed_user(store());
      expect(await rejection(store().create_passkey(passkey_input(other, { credential_id: second.credential_id })))).toBeInstanceOf(StoreConflictError);
      expect(await store().count_passkeys_for_user(other.id)).toBe(0);
    });

    test("rename only the user's own passkey", async () => {
      const user = await seed_user(store());
      const other = await seed_user(store());
      const passkey = await store().create_passkey(passkey_input(user));
      expect(await store().rename_passkey(other.id, passkey.id, "Stolen")).toBe(false);
      expect(await store().rename_passkey(user.id, passkey.id, "Work laptop")).toBe(true);
      expect((await store().get_passkey_by_credential_id(passkey.credential_id))!.name).toBe("Work laptop");
    });

    test("use_passkey: the counter only moves forward (or stays 0 for authenticators without one)", async () => {
      const user = await seed_user(store());
      const zero = await store().create_passkey(passkey_input(user));
      expect(await store().use_passkey(zero.id, 0, true, T0)).toBe(true);
      const used = (await store().get_passkey_by_credential_id(zero.credential_id))!;
      expect(used.last_used_at).toBe(T0);
      expect(used.backup_state).toBe(true);

      const counted = await store().create_passkey(passkey_input(user, { counter: 5 }));
      expect(await store().use_passkey(counted.id, 5, false, T0)).toBe(false);
      expect(await store().use_passkey(counted.id, 4, false, T0)).toBe(false);
      expect(await store().use_passkey(counted.id, 0, false, T0)).toBe(false);
      expect(await store().use_passkey(counted.id, 6, false, T0 + 1)).toBe(true);
      const after = (await store().get_passkey_by_credential_id(counted.credential_id))!;
      expect(after.counter).toBe(6);
      expect(after.last_used_at).toBe(T0 + 1);
      // Two uses with the same counter at once (a replay racing the original): one wins.
      const results = await Promise.all([store().use_passkey(counted.id, 7, false, T0 + 2), (await ctx.second()).use_passkey(counted.id, 7, false, T0 + 2)]);
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    test("delete_passkey: only the user's own; keep_last refuses the last one, even for removals at once", async () => {
      const user = await seed_user(store());
      const other = await seed_user(store());
      const a = await store().create_passkey(passkey_input(user));
      const b = await store().create_passkey(passkey_input(user));
      expect(await store().delete_passkey(other.id, a.id)).toBe(false);
      // Both at once with keep_last: exactly one may go.
      const results = await Promise.all([store().delete_passkey(user.id, a.id, { keep_last: true }), (await ctx.second()).delete_passkey(user.id, b.id, { keep_last: true })]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store().count_passkeys_for_user(user.id)).toBe(1);
      const [left] = await store().list_passkeys_for_user(user.id);
      expect(await store().delete_passkey(user.id, left!.id, { keep_last: true })).toBe(false);
      expect(await store().delete_passkey(user.id, left!.id)).toBe(true);
      expect(await store().count_passkeys_for_user(user.id)).toBe(0);
    });

    test("passkeys and challenges go with their user", async () => {
      const user = await seed_user(store());
      const passkey = await store().create_passkey(passkey_input(user));
      const challenge_hash = uid("ch");
      await store().create_webauthn_challenge({ challenge_hash, purpose: "register", binding_hash: "b", user_id: user.id, expires_at: T0 + 60 });
      await store().delete_user(user.id);
      expect(await store().get_passkey_by_credential_id(passkey.credential_id)).toBeNull();
      expect(await store().consume_webauthn_challenge(challenge_hash, T0)).toBeNull();
    });

    test("challenges: single use, once, and never after they expire", async () => {
      const challenge_hash = uid("ch");
      await store().create_webauthn_challenge({ challenge_hash, purpose: "login", binding_hash: "bind", user_id: null, expires_at: T0 + 60, created_at: T0 });
      const results = await Promise.all([store().consume_webauthn_challenge(challenge_hash, T0 + 1), (await ctx.second()).consume_webauthn_challenge(challenge_hash, T0 + 1)]);
      const taken = results.filter((r) => r !== null);
      expect(taken).toEqual([{ challenge_hash, purpose: "login", binding_hash: "bind", user_id: null, created_at: T0, expires_at: T0 + 60 }]);
      expect(await store().consume_webauthn_challenge(challenge_hash, T0 + 2)).toBeNull();

      const expired = uid("ch");
      await store().create_webauthn_challenge({ challenge_hash: expired, purpose: "login", binding_hash: "bind", user_id: null, expires_at: T0 + 60 });
      expect(await store().consume_webauthn_challenge(expired, T0 + 60)).toBeNull();
    });
  });
}
