import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, StoreError, StoreReferenceError } from "../../../src/store/types.ts";
import { seed_user, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

/** A group name that follows the rule and is unique to this run. */
const gname = (prefix: string) => `${prefix}-${uid("").replaceAll("-", "").slice(-10)}`;

export function group_tests(ctx: SuiteContext): void {
  describe("groups", () => {
    test("create_group fills defaults; names are unique case-insensitively and found in any case", async () => {
      const store = ctx.store();
      const name = gname("Team:Ops");
      const group = await store.create_group({ name, description: "  On call  ", created_at: T0 });
      expect(group).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name, description: "On call", created_at: T0 });
      expect(await store.get_group_by_name(name.toUpperCase())).toEqual(group);
      expect(await store.get_group_by_name(name.toLowerCase())).toEqual(group);
      expect(await store.get_group_by_name(gname("none"))).toBeNull();
      expect(await rejection(store.create_group({ name: name.toLowerCase() }))).toBeInstanceOf(StoreConflictError);
      const bare = await store.create_group({ name: gname("org/admins") });
      expect(bare.description).toBeNull();
    });

    test("a name outside the rule is refused, naming the rule, and nothing is stored", async () => {
      const store = ctx.store();
      for (const bad of ["", "has space", "é-accent", "x".repeat(65), 'quote"', "semi;colon"]) {
        const error = await rejection(store.create_group({ name: bad }));
        expect(error).toBeInstanceOf(StoreError);
        expect(error.message).toContain("1 to 64 ASCII letters, digits or - _ . : /");
      }
      expect(await store.get_group_by_name("has space")).toBeNull();
    });

    test("members: add is idempotent, list is ordered by username, remove reports whether it removed", async () => {
      const store = ctx.store();
      const group = await store.create_group({ name: gname("members") });
      const zed = await seed_user(store, uid("zed"));
      const amy = await seed_user(store, uid("Amy"));
      expect(await store.add_group_member(group.id, zed.id, T0)).toBe(true);
      expect(await store.add_group_member(group.id, amy.id, T0 + 1)).toBe(true);
      expect(await store.add_group_member(group.id, amy.id, T0 + 2)).toBe(false);
      expect(await store.list_group_members(group.id)).toEqual([
        { user_id: amy.id, username: amy.username, added_at: T0 + 1 },
        { user_id: zed.id, username: zed.username, added_at: T0 },
      ]);
      expect(await store.remove_group_member(group.id, zed.id)).toBe(true);
      expect(await store.remove_group_member(group.id, zed.id)).toBe(false);
      expect((await store.list_group_members(group.id)).map((m) => m.user_id)).toEqual([amy.id]);
    });

    test("add_group_member refuses an unknown group or user", async () => {
      const store = ctx.store();
      const group = await store.create_group({ name: gname("refs") });
      const user = await seed_user(store);
      expect(await rejection(store.add_group_member(uid("ghost"), user.id))).toBeInstanceOf(StoreReferenceError);
      expect(await rejection(store.add_group_member(group.id, uid("ghost")))).toBeInstanceOf(StoreReferenceError);
    });

    test("list_user_groups returns the names ordered case-insensitively; empty for a stranger", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const tag = uid("").replaceAll("-", "").slice(-8);
      const names = [`beta-${tag}`, `Alpha-${tag}`, `gamma-${tag}`];
      for (const name of names) await store.add_group_member((await store.create_group({ name })).id, user.id);
      await store.create_group({ name: `other-${tag}` });
      expect(await store.list_user_groups(user.id)).toEqual([`Alpha-${tag}`, `beta-${tag}`, `gamma-${tag}`]);
      expect(await store.list_user_groups(uid("nobody"))).toEqual([]);
    });

    test("deleting a group removes its memberships; deleting a user removes theirs", async () => {
      const store = ctx.store();
      const a = await store.create_group({ name: gname("del-a") });
      const b = await store.create_group({ name: gname("del-b") });
      const user = await seed_user(store);
      const other = await seed_user(store);
      await store.add_group_member(a.id, user.id);
      await store.add_group_member(b.id, user.id);
      await store.add_group_member(b.id, other.id);
      expect(await store.delete_group(a.id)).toBe(true);
      expect(await store.delete_group(a.id)).toBe(false);
      expect(await store.list_user_groups(user.id)).toEqual([b.name]);
      expect(await store.delete_user(user.id)).toBe(true);
      expect(await store.list_group_members(b.id)).toEqual([{ user_id: other.id, username: other.username, added_at: expect.any(Number) }]);
    });

    test("list_groups counts members and orders by name", async () => {
      await ctx.withFresh(async (store) => {
        const user = await seed_user(store);
        const b = await store.create_group({ name: "b-team", created_at: T0 });
        const a = await store.create_group({ name: "A-team", description: "first", created_at: T0 });
        await store.add_group_member(b.id, user.id);
        expect(await store.list_groups()).toEqual([
          { ...a, members: 0 },
          { ...b, members: 1 },
        ]);
      });
    });

    test("sync_upstream_group_members adds and removes only the upstream's own memberships", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const manual = await store.create_group({ name: gname("manual") });
      const ops = await store.create_group({ name: gname("ops") });
      const dev = await store.create_group({ name: gname("dev") });
      const up = uid("up");
      const other_up = uid("up2");
      expect(await store.add_group_member(manual.id, user.id, T0)).toBe(true);
      // A membership an administrator added keeps its origin: listed, never added nor removed by the upstream.
      expect(await store.sync_upstream_group_members(up, user.id, [manual.id, ops.id], T0)).toEqual({ added: [ops.name], removed: [] });
      expect((await store.list_user_groups(user.id)).sort()).toEqual([manual.name, ops.name].sort());
      expect(await store.sync_upstream_group_members(up, user.id, [manual.id, ops.id], T0)).toEqual({ added: [], removed: [] });
      expect(await store.sync_upstream_group_members(other_up, user.id, [dev.id], T0)).toEqual({ added: [dev.name], removed: [] });
      expect(await store.sync_upstream_group_members(up, user.id, [], T0 + 1)).toEqual({ added: [], removed: [ops.name] });
      // The other upstream's membership and the administrator's stay.
      expect((await store.list_user_groups(user.id)).sort()).toEqual([manual.name, dev.name].sort());
      expect(await store.sync_upstream_group_members(other_up, user.id, [], T0 + 2)).toEqual({ added: [], removed: [dev.name] });
      expect(await store.list_user_groups(user.id)).toEqual([manual.name]);
    });

    test("sessions keep the user agent and address they were started from", async () => {
      const store = ctx.store();
      const user = await seed_user(store);
      const with_device = await store.create_session({
        id_hash: uid("s"),
        user_id: user.id,
        auth_time: T0,
        amr: ["pwd"],
        expires_at: T0 + 100,
        user_agent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0",
        ip: "203.0.113.7",
      });
      const without = await store.create_session({ id_hash: uid("s"), user_id: user.id, auth_time: T0, amr: ["pwd"], expires_at: T0 + 100 });
      expect(await store.get_session(with_device.id_hash)).toMatchObject({ user_agent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0", ip: "203.0.113.7" });
      expect(await store.get_session(without.id_hash)).toMatchObject({ user_agent: null, ip: null });
      expect((await store.list_sessions_for_user(user.id)).map((s) => s.ip).sort()).toEqual(["203.0.113.7", null].sort());
    });
  });
}
