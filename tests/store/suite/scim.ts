import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, StoreReferenceError } from "../../../src/store/types.ts";
import { seed_user, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

const gname = (prefix: string) => `${prefix}-${uid("").replaceAll("-", "").slice(-10)}`;

export function scim_tests(ctx: SuiteContext): void {
  describe("scim (migration 030)", () => {
    test("a user's externalId and enterprise values are stored, replaced, found by externalId exactly, and go with the user", async () => {
      const store = ctx.store();
      const user = await seed_user(store, uid("scim"));
      const external = uid("ext-");
      expect(await store.get_scim_user(user.id)).toBeNull();
      await store.put_scim_user({ user_id: user.id, external_id: external, enterprise: { department: "Tour", manager: { value: "x" } }, updated_at: T0 });
      expect(await store.get_scim_user(user.id)).toEqual({ user_id: user.id, external_id: external, enterprise: { department: "Tour", manager: { value: "x" } }, updated_at: T0 });
      expect(await store.find_scim_users_by_external_id(external)).toEqual([user.id]);
      expect(await store.find_scim_users_by_external_id(external.toUpperCase())).toEqual([]);
      await store.put_scim_user({ user_id: user.id, external_id: null, enterprise: {}, updated_at: T0 + 1 });
      expect(await store.get_scim_user(user.id)).toEqual({ user_id: user.id, external_id: null, enterprise: {}, updated_at: T0 + 1 });
      expect(await store.find_scim_users_by_external_id(external)).toEqual([]);
      await store.put_scim_user({ user_id: user.id, external_id: external, enterprise: {}, updated_at: T0 });
      expect(await store.delete_user(user.id)).toBe(true);
      expect(await store.get_scim_user(user.id)).toBeNull();
      expect(await store.find_scim_users_by_external_id(external)).toEqual([]);
    });

    test("SCIM tokens (migration 035): created, found by hash only, listed by name, revoked once; a taken name is a conflict", async () => {
      const store = ctx.store();
      const name = gname("tok");
      const hash = uid("hash-");
      const row = { name, token_hash: hash, created_at: T0, expires_at: T0 + 86_400, revoked_at: null };
      await store.create_scim_token(row);
      expect(await store.get_scim_token_by_hash(hash)).toEqual(row);
      expect(await store.get_scim_token_by_hash(hash.toUpperCase())).toBeNull();
      expect((await store.list_scim_tokens()).find((t) => t.name === name)).toEqual(row);
      expect(await rejection(store.create_scim_token({ ...row, token_hash: uid("other-") }))).toBeInstanceOf(StoreConflictError);
      expect(await store.revoke_scim_token(name, T0 + 5)).toBe(true);
      expect(await store.revoke_scim_token(name, T0 + 6)).toBe(false);
      expect(await store.revoke_scim_token(gname("none"), T0)).toBe(false);
      expect(await store.get_scim_token_by_hash(hash)).toEqual({ ...row, revoked_at: T0 + 5 });
    });

    test("a row for an unknown user or group is refused", async () => {
      const store = ctx.store();
      expect(await rejection(store.put_scim_user({ user_id: uid("nobody"), external_id: null, enterprise: {}, updated_at: T0 }))).toBeInstanceOf(StoreReferenceError);
      expect(await rejection(store.put_scim_group({ group_id: uid("nogroup"), external_id: null, display_name: "x", updated_at: T0 }))).toBeInstanceOf(StoreReferenceError);
    });

    test("a group's externalId and display name are stored and found; get_group_by_id and rename_group", async () => {
      const store = ctx.store();
      const group = await store.create_group({ name: gname("scim"), description: "first" });
      const external = uid("gext-");
      await store.put_scim_group({ group_id: group.id, external_id: external, display_name: "Sales Team", updated_at: T0 });
      expect(await store.get_scim_group(group.id)).toEqual({ group_id: group.id, external_id: external, display_name: "Sales Team", updated_at: T0 });
      expect(await store.find_scim_groups_by_external_id(external)).toEqual([group.id]);
      expect(await store.get_group_by_id(group.id)).toEqual(group);
      expect(await store.get_group_by_id(uid("none"))).toBeNull();
      const renamed = gname("Renamed");
      expect(await store.rename_group(group.id, renamed)).toEqual({ ...group, name: renamed });
      expect(await store.get_group_by_name(renamed.toLowerCase())).toEqual({ ...group, name: renamed });
      expect(await store.get_group_by_name(group.name)).toBeNull();
      expect((await store.rename_group(group.id, renamed, null))!.description).toBeNull();
      expect(await store.rename_group(uid("none"), gname("x"))).toBeNull();
      const other = await store.create_group({ name: gname("other") });
      expect(await rejection(store.rename_group(other.id, renamed.toUpperCase()))).toBeInstanceOf(StoreConflictError);
      expect(await store.delete_group(group.id)).toBe(true);
      expect(await store.get_scim_group(group.id)).toBeNull();
    });
  });
}
