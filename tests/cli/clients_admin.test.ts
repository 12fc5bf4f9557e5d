/** `idp clients add|update --admin`: the flag that lets a client get the admin API's scope (oidc/admin/scope.ts). */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

test("add --admin: flagged, with the scope admin beside its own; only with client_credentials and authentication", async () => {
  const added = await box.run(["clients", "add", "--name", "ops", "--grant-type", "client_credentials", "--scope", "reports", "--admin", "--json"]);
  expect(added.code).toBe(0);
  expect(added.json()).toMatchObject({ admin: true, scope: "reports admin" });

  const no_grant = await box.run(["clients", "add", "--name", "web", "--redirect-uri", "https://rp.example/cb", "--admin"]);
  expect(no_grant.code).toBe(1);
  expect(no_grant.stderr).toContain("--admin: an admin client needs the client_credentials grant");
  expect((await box.run(["clients", "list", "--json"])).json<unknown[]>().length).toBe(1);
});

test("update --admin on|off: sets and clears the flag and the scope, leaving the others", async () => {
  const added = await box.run(["clients", "add", "--name", "batch", "--grant-type", "client_credentials", "--scope", "reports", "--json"]);
  const { client_id } = added.json<{ client_id: string }>();
  const on = await box.run(["clients", "update", client_id, "--admin", "on", "--json"]);
  expect(on.code).toBe(0);
  expect(on.json()).toMatchObject({ admin: true, scope: "reports admin" });
  const off = await box.run(["clients", "update", client_id, "--admin", "off", "--json"]);
  const shown = off.json<Record<string, unknown>>();
  expect(shown.scope).toBe("reports");
  expect(shown).not.toHaveProperty("admin");
  const bad = await box.run(["clients", "update", client_id, "--admin", "yes"]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('--admin "yes" is not one of on, off');
});
