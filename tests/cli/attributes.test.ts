/**
 * `idp attributes add|list|show|update|remove` (src/cli/attributes.ts) and `idp users update
 * --attribute KEY=VALUE` (src/cli/users_update.ts): names and claims checked (a standard claim
 * refused unless --claim renames it), values typed from text, `KEY=` clears, a bad value changes
 * nothing, every change audited.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(async () => {
  box = sandbox();
  expect((await box.run(["users", "add", "alice", "--password-stdin"], { stdin: "correct horse battery\n" })).code).toBe(0);
});
afterAll(() => box.cleanup());

type Shown = { name: string; type: string; scope: string; claim: string; user_editable: boolean; required: boolean };

describe("idp attributes", () => {
  test("add declares an attribute with its type, scope and claim; list and show read it back", async () => {
    const added = (await box.run(["attributes", "add", "department", "--type", "string", "--json"])).json<Shown>();
    expect(added).toMatchObject({ name: "department", type: "string", scope: "profile", claim: "department", user_editable: false, required: false });
    const teams = await box.run(["attributes", "add", "teams", "--type", "string[]", "--scope", "org", "--user-editable", "--required"]);
    expect(teams.code).toBe(0);
    expect(teams.stdout).toContain("released as the claim teams with the scope org");
    expect((await box.run(["attributes", "add", "age", "--type", "number", "--scope", "org"])).code).toBe(0);
    expect((await box.run(["attributes", "add", "contractor", "--type", "boolean", "--scope", "org"])).code).toBe(0);
    const listed = (await box.run(["attributes", "list", "--json"])).json<Shown[]>();
    expect(listed.map((d) => d.name)).toEqual(["age", "contractor", "department", "teams"]);
    expect((await box.run(["attributes", "show", "TEAMS", "--json"])).json<Shown>()).toMatchObject({ name: "teams", user_editable: true, required: true });
    const table = await box.run(["attributes", "list"]);
    expect(table.stdout).toMatch(/teams\s+string\[\]\s+org\s+teams\s+yes\s+yes/);
  });

  test("a standard claim name is refused unless --claim renames it; bad names, types, scopes and taken names too", async () => {
    const email = await box.run(["attributes", "add", "email", "--type", "string"]);
    expect(email).toMatchObject({ code: 1, stderr: expect.stringContaining('"email" is a registered claim name; keep the name and release it under another claim with --claim') });
    const renamed = (await box.run(["attributes", "add", "email", "--type", "string", "--claim", "work_email", "--json"])).json<Shown>();
    expect(renamed).toMatchObject({ name: "email", claim: "work_email" });
    for (const [args, message] of [
      [["add", "Sub", "--type", "string"], "registered claim name"],
      [["add", "x", "--type", "string", "--claim", "ISS"], "registered claim name"],
      [["add", "dept", "--type", "string", "--claim", "department"], "already the claim of attribute department"],
      [["add", "1abc", "--type", "string"], "1 to 64 ASCII letters"],
      [["add", "a-b", "--type", "string"], "1 to 64 ASCII letters"],
      [["add", "x", "--type", "date"], '"date" is not a type'],
      [["add", "x", "--type", "string", "--scope", "offline_access"], "releases no claims"],
      [["add", "x", "--type", "string", "--scope", "admin"], "releases no claims"],
      [["add", "x", "--type", "string", "--scope", "Org"], "is not valid"],
      [["add", "DEPARTMENT", "--type", "string", "--claim", "dept2"], "exists already"],
    ] as const) {
      const refused = await box.run(["attributes", ...args]);
      expect({ args, code: refused.code, message: refused.stderr.includes(message) }).toEqual({ args, code: 1, message: true });
    }
    expect((await box.run(["attributes", "add", "x", "--type", "string", "--claim", "ISS"])).code).toBe(1);
    expect((await box.run(["attributes", "add", "x"])).code).toBe(2);
  });

  test("update changes scope, claim and flags; the new claim is checked too", async () => {
    const updated = (await box.run(["attributes", "update", "department", "--scope", "org", "--claim", "dept", "--user-editable", "--json"])).json<Shown>();
    expect(updated).toMatchObject({ name: "department", scope: "org", claim: "dept", user_editable: true });
    expect((await box.run(["attributes", "update", "department", "--not-user-editable", "--json"])).json<Shown>().user_editable).toBe(false);
    expect(await box.run(["attributes", "update", "department", "--claim", "teams"])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("already the claim of attribute teams"),
    });
    expect((await box.run(["attributes", "update", "department", "--required", "--optional"])).code).toBe(2);
    expect((await box.run(["attributes", "update", "department"])).code).toBe(2);
    expect(await box.run(["attributes", "update", "nope", "--required"])).toMatchObject({ code: 1, stderr: expect.stringContaining('no attribute "nope"') });
  });

  test("users update --attribute sets typed values, a list from commas or repeats, KEY= clears; a bad value changes nothing", async () => {
    const set = await box.run([
      "users",
      "update",
      "alice",
      "--given-name",
      "Alice",
      "--attribute",
      "department=Sales",
      "--attribute",
      "teams=red, blue",
      "--attribute",
      "teams=green",
      "--attribute",
      "AGE=42",
      "--attribute",
      "contractor=false",
      "--json",
    ]);
    expect(set.code).toBe(0);
    expect(set.json<{ given_name: string; attributes: Record<string, unknown> }>()).toMatchObject({
      given_name: "Alice",
      attributes: { department: "Sales", teams: ["red", "blue", "green"], age: 42, contractor: false },
    });
    for (const [assignment, message] of [
      ["age=forty", '"forty" is not a number'],
      ["age=0x10", "is not a number"],
      ["contractor=yes", "is not true or false"],
      ["nope=1", 'no attribute "nope" is declared'],
      ["department", "is not KEY=VALUE"],
      [`department=${"x".repeat(1025)}`, "longer than 1024 characters"],
      ["department=a\u0007b", "control characters"],
    ] as const) {
      const refused = await box.run(["users", "update", "alice", "--attribute", "department=Ops", "--attribute", assignment]);
      expect({ assignment, code: refused.code, message: refused.stderr.includes(message) }).toEqual({ assignment, code: 1, message: true });
    }
    const cleared = (await box.run(["users", "update", "alice", "--attribute", "age=", "--attribute", "contractor=true", "--json"])).json<{
      attributes: Record<string, unknown>;
    }>();
    expect(cleared.attributes).toEqual({ department: "Sales", teams: ["red", "blue", "green"], contractor: true });
    expect((await box.run(["users", "update", "alice"])).code).toBe(2);
    const events = await with_store(box, (store) => store.list_audit_events({}));
    const types = events.map((e) => e.type);
    for (const type of ["attribute_created", "attribute_updated", "user_updated"]) expect(types).toContain(type);
  });

  test("remove deletes the definition and every user's value of it", async () => {
    const removed = await box.run(["attributes", "remove", "Age"]);
    expect(removed).toMatchObject({ code: 0, stdout: expect.stringContaining("Removed attribute age") });
    expect((await box.run(["attributes", "remove", "age"])).code).toBe(1);
    const values = await with_store(box, async (store) => store.list_user_attribute_values([(await store.get_user_by_username("alice"))!.id]));
    expect(values.map((v) => v.name).sort()).toEqual(["contractor", "department", "teams"]);
    const events = await with_store(box, (store) => store.list_audit_events({}));
    expect(events.find((e) => e.type === "attribute_removed")?.details).toEqual({ name: "age", via: "cli" });
  });
});
