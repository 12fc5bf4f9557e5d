import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError } from "../../../src/store/types.ts";
import { concurrently, seed_user, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

const short = (prefix: string) => `${prefix}-${uid("").replaceAll("-", "").slice(-10)}`;

export function ldap_tests(ctx: SuiteContext): void {
  describe("ldap directory", () => {
    test("service accounts: create, find in any case, list by name, new secret, delete; names unique case-insensitively", async () => {
      const store = ctx.store();
      const name = short("Gitea");
      const created = await store.create_ldap_service_account({ name, secret_hash: "h1", group_name: "devs", created_at: T0 });
      expect(created).toEqual({ name, secret_hash: "h1", group_name: "devs", created_at: T0, secret_created_at: T0 });
      expect(await store.get_ldap_service_account(name.toUpperCase())).toEqual(created);
      expect(await rejection(store.create_ldap_service_account({ name: name.toLowerCase(), secret_hash: "h2" }))).toBeInstanceOf(StoreConflictError);
      const other = await store.create_ldap_service_account({ name: short("a-grafana"), secret_hash: "h3" });
      expect(other.group_name).toBeNull();
      const listed = (await store.list_ldap_service_accounts()).map((a) => a.name).filter((n) => n === name || n === other.name);
      expect(listed).toEqual([other.name, name]);
      expect(await store.set_ldap_service_account_secret(name.toLowerCase(), "h4", T0 + 5)).toEqual({ ...created, secret_hash: "h4", secret_created_at: T0 + 5 });
      expect(await store.set_ldap_service_account_secret(short("none"), "h5", T0)).toBeNull();
      expect(await store.delete_ldap_service_account(name)).toBe(true);
      expect(await store.delete_ldap_service_account(name)).toBe(false);
      expect(await store.get_ldap_service_account(name)).toBeNull();
    });

    test("POSIX numbers are given once, from `first` up, never twice, and survive their owner", async () => {
      await ctx.withFresh(async (store) => {
        const [a, b, c] = [uid("u"), uid("u"), uid("g")];
        expect(await store.ldap_posix_numbers([a, b], 5000)).toEqual({ [a]: 5000, [b]: 5001 });
        expect(await store.ldap_posix_numbers([b, c, a], 5000)).toEqual({ [a]: 5000, [b]: 5001, [c]: 5002 });
        // A higher start applies to new ids only; a lower one never reuses a number.
        const d = uid("u");
        expect(await store.ldap_posix_numbers([d], 9000)).toEqual({ [d]: 9000 });
        const e = uid("u");
        expect(await store.ldap_posix_numbers([e], 100)).toEqual({ [e]: 9001 });
        expect(await store.ldap_posix_numbers([], 100)).toEqual({});
        // The owner's row going does not free its number.
        const user = await seed_user(store);
        const { [user.id]: number } = await store.ldap_posix_numbers([user.id], 100);
        expect(await store.delete_user(user.id)).toBe(true);
        const f = uid("u");
        expect(await store.ldap_posix_numbers([user.id, f], 100)).toEqual({ [user.id]: number!, [f]: number! + 1 });
      });
    });

    test("concurrent allocations from two instances never share a number", async () => {
      const store = ctx.store();
      const second = await ctx.second();
      const ids = Array.from({ length: 20 }, () => uid("c"));
      const results = await concurrently(20, (i) => (i % 2 === 0 ? store : second).ldap_posix_numbers([ids[i]!], 200_000));
      const numbers = results.map((r, i) => r[ids[i]!]!);
      expect(new Set(numbers).size).toBe(20);
      expect(await store.ldap_posix_numbers(ids, 200_000)).toEqual(Object.fromEntries(ids.map((id, i) => [id, numbers[i]!])));
    });

    test("directory memberships: active users only, by group, by user or all", async () => {
      const store = ctx.store();
      const group = await store.create_group({ name: short("dir") });
      const other = await store.create_group({ name: short("dir2") });
      const active = await seed_user(store, uid("act"));
      const disabled = await store.create_user({ username: uid("off"), password_hash: "", status: "disabled" });
      for (const user of [active, disabled]) await store.add_group_member(group.id, user.id, T0);
      await store.add_group_member(other.id, active.id, T0);
      const by_group = await store.list_directory_memberships({ group_ids: [group.id] });
      expect(by_group).toEqual([{ group_id: group.id, group_name: group.name, user_id: active.id, username: active.username }]);
      const by_user = await store.list_directory_memberships({ user_ids: [active.id, disabled.id] });
      expect(by_user.map((m) => m.group_name).sort()).toEqual([group.name, other.name].sort());
      const all = await store.list_directory_memberships({});
      expect(all.filter((m) => m.group_id === group.id || m.group_id === other.id)).toHaveLength(2);
      expect(await store.list_directory_memberships({ group_ids: [] })).toEqual([]);
    });
  });
}
