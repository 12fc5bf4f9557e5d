/**
 * The command line is the break-glass path (oidc/admin/lockout.ts, src/cli/lockout.ts): it
 * refuses to remove the last active administrator, or take them out of the admin group, unless
 * given --force, and then says what it did.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(async () => {
  box = sandbox();
  for (const name of ["root", "spare"]) expect((await box.run(["users", "add", name, "--password-stdin"], { stdin: "correct horse\n" })).code).toBe(0);
  expect((await box.run(["groups", "add", "admins"])).code).toBe(0);
  expect((await box.run(["groups", "members", "add", "admins", "root"])).code).toBe(0);
});
afterAll(() => box.cleanup());

describe("idp and the last administrator", () => {
  test("the last active administrator leaves the admin group only with --force, which says so", async () => {
    const refused = await box.run(["groups", "members", "remove", "admins", "root"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("root is the last active administrator");
    expect(refused.stderr).toContain("--force");
    expect((await box.run(["groups", "members", "list", "admins", "--json"])).json<{ members: unknown[] }>().members).toHaveLength(1);

    const forced = await box.run(["groups", "members", "remove", "admins", "root", "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("root was the last active administrator");
    expect((await box.run(["groups", "members", "list", "admins", "--json"])).json<{ members: unknown[] }>().members).toHaveLength(0);
    expect((await box.run(["groups", "members", "add", "admins", "root"])).code).toBe(0);
  });

  test("the last active administrator is removed only with --force; another one needs none", async () => {
    const refused = await box.run(["users", "remove", "root"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("root is the last active administrator");
    expect(await with_store(box, (store) => store.get_user_by_username("root"))).not.toBeNull();

    expect((await box.run(["groups", "members", "add", "admins", "spare"])).code).toBe(0);
    expect((await box.run(["users", "remove", "spare"])).code).toBe(0);

    const forced = await box.run(["users", "remove", "root", "--force", "--json"]);
    expect(forced.code).toBe(0);
    expect(forced.json()).toMatchObject({ removed: true, username: "root", forced_last_admin: true });
    const events = await with_store(box, (store) => store.list_audit_events({ type: "user_deleted" }));
    expect(events.find((event) => event.details?.username === "root")?.details).toMatchObject({ forced_last_admin: true });
  });
});
