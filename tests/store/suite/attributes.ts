import { describe, expect, test } from "../../helpers/test_api.ts";
import { StoreConflictError, StoreReferenceError } from "../../../src/store/types.ts";
import { seed_user, T0, uid } from "../fixtures.ts";
import type { SuiteContext } from "../suite.ts";
import { rejection } from "../../helpers/settle.ts";

const short = (prefix: string) => `${prefix}${uid("").replaceAll("-", "").slice(-10)}`;

export function attribute_tests(ctx: SuiteContext): void {
  describe("user attributes", () => {
    test("definitions: create, find in any case, list by name, update, delete; names unique case-insensitively", async () => {
      const store = ctx.store();
      const name = short("Dept");
      const created = await store.create_attribute_definition({ name, type: "string", scope: "profile", claim: name, created_at: T0 });
      expect(created).toEqual({ name, type: "string", scope: "profile", claim: name, user_editable: false, required: false, created_at: T0, updated_at: T0 });
      expect(await store.get_attribute_definition(name.toUpperCase())).toEqual(created);
      expect(await rejection(store.create_attribute_definition({ name: name.toLowerCase(), type: "number", scope: "x", claim: "x" }))).toBeInstanceOf(StoreConflictError);
      const other = await store.create_attribute_definition({ name: short("aTeams"), type: "string[]", scope: "org", claim: "teams", user_editable: true, required: true });
      expect(other.user_editable).toBe(true);
      expect(other.required).toBe(true);
      const listed = (await store.list_attribute_definitions()).map((d) => d.name).filter((n) => n === name || n === other.name);
      expect(listed).toEqual([other.name, name]);
      const updated = await store.update_attribute_definition(name.toLowerCase(), { claim: "department", user_editable: true }, T0 + 5);
      expect(updated).toEqual({ ...created, claim: "department", user_editable: true, updated_at: T0 + 5 });
      expect(await store.update_attribute_definition(name, { required: true, user_editable: false }, T0 + 6)).toEqual({
        ...created,
        claim: "department",
        required: true,
        updated_at: T0 + 6,
      });
      expect(await store.update_attribute_definition(short("none"), { claim: "x" }, T0)).toBeNull();
      expect(await store.delete_attribute_definition(name)).toBe(true);
      expect(await store.delete_attribute_definition(name)).toBe(false);
      expect(await store.get_attribute_definition(name)).toBeNull();
      await store.delete_attribute_definition(other.name);
    });

    test("values: set, replace and clear in one call, read for several users; deleting the definition or the user deletes them", async () => {
      const store = ctx.store();
      const [a, b] = [await seed_user(store), await seed_user(store)];
      const dept = await store.create_attribute_definition({ name: short("dept"), type: "string", scope: "profile", claim: "dept" });
      const teams = await store.create_attribute_definition({ name: short("Teams"), type: "string[]", scope: "org", claim: "teams" });
      await store.set_user_attribute_values(a.id, { [dept.name]: "Sales", [teams.name.toLowerCase()]: ["red", "blue"] }, T0);
      await store.set_user_attribute_values(b.id, { [dept.name]: "Ops" }, T0);
      const read = async (ids: string[]) =>
        (await store.list_user_attribute_values(ids)).map((v) => `${v.user_id === a.id ? "a" : "b"}:${v.name}=${JSON.stringify(v.value)}@${v.updated_at}`).sort();
      // Values come back under the declared name, whatever case the caller used.
      expect(await read([a.id, b.id, a.id])).toEqual([`a:${dept.name}="Sales"@${T0}`, `a:${teams.name}=["red","blue"]@${T0}`, `b:${dept.name}="Ops"@${T0}`].sort());
      await store.set_user_attribute_values(a.id, { [dept.name]: null, [teams.name]: ["green"] }, T0 + 1);
      expect(await read([a.id])).toEqual([`a:${teams.name}=["green"]@${T0 + 1}`]);
      expect(await store.list_user_attribute_values([])).toEqual([]);
      // All or none: an unknown attribute fails the whole call.
      expect(await rejection(store.set_user_attribute_values(a.id, { [dept.name]: "x", [short("nope")]: 1 }, T0 + 2))).toBeInstanceOf(StoreReferenceError);
      expect(await read([a.id])).toEqual([`a:${teams.name}=["green"]@${T0 + 1}`]);
      expect(await rejection(store.set_user_attribute_values(uid("ghost"), { [dept.name]: null }, T0))).toBeInstanceOf(StoreReferenceError);
      expect(await store.delete_attribute_definition(teams.name)).toBe(true);
      expect(await read([a.id])).toEqual([]);
      expect(await store.delete_user(b.id)).toBe(true);
      expect(await read([b.id])).toEqual([]);
      await store.delete_attribute_definition(dept.name);
    });
  });
}
