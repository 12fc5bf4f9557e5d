/**
 * `idp groups ...`, `idp users show` listing groups, and the group flags of `idp clients
 * add|update` (oidc/claims/groups.ts): bad input is refused naming the field and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { AuditEvent, ClientMetadata } from "../../src/store/types.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(async () => {
  box = sandbox();
  for (const name of ["alice", "bob"]) expect((await box.run(["users", "add", name, "--password-stdin"], { stdin: "correct horse\n" })).code).toBe(0);
});
afterAll(() => box.cleanup());

async function metadata_of(client_id: string): Promise<ClientMetadata> {
  return with_store(box, async (store) => (await store.get_client(client_id))!.metadata);
}

describe("idp groups", () => {
  test("add, list (human and JSON), members add/list/remove, users show lists the groups", async () => {
    const added = await box.run(["groups", "add", "Team:Ops", "--description", "On call", "--json"]);
    expect(added.code).toBe(0);
    expect(added.json()).toMatchObject({ name: "Team:Ops", description: "On call" });
    expect((await box.run(["groups", "add", "admins"])).stdout).toContain("Created group admins");

    expect((await box.run(["groups", "members", "add", "team:ops", "alice"])).stdout).toContain("Added alice to Team:Ops");
    expect((await box.run(["groups", "members", "add", "TEAM:OPS", "alice"])).stdout).toContain("alice already is in Team:Ops");
    expect((await box.run(["groups", "members", "add", "admins", "alice"])).code).toBe(0);
    expect((await box.run(["groups", "members", "add", "admins", "bob"])).code).toBe(0);

    const list = await box.run(["groups", "list"]);
    expect(list.stdout).toMatch(/NAME\s+MEMBERS\s+DESCRIPTION\s+CREATED/);
    expect(list.stdout).toMatch(/admins\s+2\s+-/);
    expect(list.stdout).toMatch(/Team:Ops\s+1\s+On call/);
    const listed = (await box.run(["groups", "list", "--json"])).json<{ name: string; members: number }[]>();
    expect(listed.map((g) => [g.name, g.members])).toEqual([
      ["admins", 2],
      ["Team:Ops", 1],
    ]);

    const members = (await box.run(["groups", "members", "list", "admins", "--json"])).json<{ group: string; members: { username: string }[] }>();
    expect(members.group).toBe("admins");
    expect(members.members.map((m) => m.username)).toEqual(["alice", "bob"]);
    expect((await box.run(["groups", "members", "list", "admins"])).stdout).toMatch(/USERNAME\s+ID\s+ADDED\nalice/);

    const shown = (await box.run(["users", "show", "alice", "--json"])).json<{ groups: string[] }>();
    expect(shown.groups).toEqual(["admins", "Team:Ops"]);
    expect((await box.run(["users", "show", "alice"])).stdout).toMatch(/groups:\s+admins Team:Ops/);

    const removed = await box.run(["groups", "members", "remove", "admins", "bob"]);
    expect(removed.stdout).toContain("Removed bob from admins");
    const again = await box.run(["groups", "members", "remove", "admins", "bob"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("bob is not in group admins");

    const events = await with_store(box, (store) => store.list_audit_events({}));
    const types = events.map((e: AuditEvent) => e.type);
    for (const type of ["group_created", "group_member_added", "group_member_removed"]) expect(types).toContain(type);
  });

  test("bad names, taken names (any case), unknown groups and users are refused and change nothing", async () => {
    const bad = await box.run(["groups", "add", "has space"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('group name "has space" is not valid: use 1 to 64 ASCII letters, digits or - _ . : /');
    await box.run(["groups", "add", "Editors"]);
    const taken = await box.run(["groups", "add", "editors"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('group "Editors" already exists');
    expect((await box.run(["groups", "members", "add", "nope", "alice"])).stderr).toContain('no group "nope"');
    expect((await box.run(["groups", "members", "add", "Editors", "nobody"])).stderr).toContain('no user "nobody"');
    expect((await box.run(["groups", "members"])).code).toBe(2);
    expect((await box.run(["groups", "members", "frobnicate"])).code).toBe(2);
    const names = (await box.run(["groups", "list", "--json"])).json<{ name: string }[]>().map((g) => g.name);
    expect(names).not.toContain("has space");
    expect(names.filter((n) => n.toLowerCase() === "editors")).toEqual(["Editors"]);
  });

  test("remove deletes the memberships and names the clients whose policy still names the group", async () => {
    await box.run(["groups", "add", "temp"]);
    await box.run(["groups", "members", "add", "temp", "bob"]);
    const client = (await box.run(["clients", "add", "--name", "Uses temp", "--redirect-uri", "https://rp.example/cb", "--allowed-group", "temp", "--json"])).json<{
      client_id: string;
    }>();
    const removed = await box.run(["groups", "remove", "TEMP", "--json"]);
    expect(removed.code).toBe(0);
    expect(removed.json()).toEqual({ removed: true, name: "temp", members: 1, clients_naming_it: [client.client_id] });
    expect((await box.run(["users", "show", "bob", "--json"])).json<{ groups: string[] }>().groups).not.toContain("temp");
    expect((await box.run(["groups", "remove", "temp"])).stderr).toContain('no group "temp"');
  });
});

describe("idp clients: group settings", () => {
  test("add stores the claim name, prefix, roles and allowed groups as the groups spell them", async () => {
    await box.run(["groups", "add", "grafana-admins"]);
    await box.run(["groups", "add", "grafana-editors"]);
    const added = await box.run([
      "clients",
      "add",
      "--name",
      "Grafana",
      "--redirect-uri",
      "https://grafana.example/login/generic_oauth",
      "--groups-claim",
      "groups",
      "--groups-prefix",
      "grafana-",
      "--strip-groups-prefix",
      "--role",
      "GRAFANA-ADMINS=Admin",
      "--role",
      "grafana-editors=Editor",
      "--allowed-group",
      "Grafana-Admins",
      "--allowed-group",
      "grafana-editors",
      "--json",
    ]);
    expect(added.code).toBe(0);
    const { client_id } = added.json<{ client_id: string }>();
    expect(await metadata_of(client_id)).toMatchObject({
      groups_claim: "groups",
      groups_prefix: "grafana-",
      groups_prefix_strip: true,
      roles: { "grafana-admins": "Admin", "grafana-editors": "Editor" },
      allowed_groups: ["grafana-admins", "grafana-editors"],
    });
    const shown = (await box.run(["clients", "show", client_id, "--json"])).json<Record<string, unknown>>();
    expect(shown.allowed_groups).toEqual(["grafana-admins", "grafana-editors"]);
  });

  test("add refuses registered claim names, bad values and unknown groups, naming the flag, and creates nothing", async () => {
    const before = (await box.run(["clients", "list", "--json"])).json<unknown[]>().length;
    const base = ["clients", "add", "--name", "Bad", "--redirect-uri", "https://rp.example/cb"];
    const cases: [string[], string][] = [
      [["--groups-claim", "sub"], '--groups-claim: groups_claim "sub" is a registered claim name'],
      [["--groups-claim", "email"], '--groups-claim: groups_claim "email" is a registered claim name'],
      [["--groups-claim", "has space"], '--groups-claim: groups_claim "has space" is not valid'],
      [["--strip-groups-prefix"], "--strip-groups-prefix: groups_prefix_strip needs groups_prefix"],
      [["--groups-prefix", "bad prefix"], '--groups-prefix: groups_prefix "bad prefix" is not valid'],
      [["--role", "admins"], '--role "admins" must be GROUP=VALUE'],
      [["--role", "admins= "], '--role: roles: the role of group "admins" must be 1 to 64 printable ASCII characters'],
      [["--allowed-group", "nobody-group"], '--allowed-group: no group "nobody-group" (create it with idp groups add)'],
      [["--role", "ghosts=Admin"], '--role: no group "ghosts"'],
      [["--groups-claim", "roles", "--role", "admins=Admin"], "would collide with the roles claim"],
    ];
    for (const [flags, message] of cases) {
      const result = await box.run([...base, ...flags]);
      expect(result.code, flags.join(" ")).toBe(1);
      expect(result.stderr).toContain(message);
    }
    expect((await box.run(["clients", "list", "--json"])).json<unknown[]>().length).toBe(before);
  });

  test("update replaces the members given, --clear removes one, other metadata stays", async () => {
    const { client_id } = (await box.run(["clients", "add", "--name", "Kube", "--redirect-uri", "http://localhost:8000", "--scope", "openid groups", "--json"])).json<{
      client_id: string;
    }>();
    await box.run(["groups", "add", "k8s-admins"]);
    const updated = await box.run(["clients", "update", client_id, "--groups-prefix", "k8s-", "--allowed-group", "k8s-admins", "--json"]);
    expect(updated.code).toBe(0);
    expect(await metadata_of(client_id)).toMatchObject({ client_name: "Kube", scope: "openid groups", groups_prefix: "k8s-", allowed_groups: ["k8s-admins"] });

    const human = await box.run(["clients", "update", client_id, "--strip-groups-prefix", "--groups-claim", "k8s_groups"]);
    expect(human.stdout).toContain(`Updated client ${client_id} (groups_claim, groups_prefix_strip)`);
    expect(await metadata_of(client_id)).toMatchObject({ groups_claim: "k8s_groups", groups_prefix_strip: true, allowed_groups: ["k8s-admins"] });

    // Clearing the prefix takes the stripping with it; clearing allowed_groups opens the client to everyone.
    expect((await box.run(["clients", "update", client_id, "--clear", "groups_prefix", "--clear", "allowed_groups"])).code).toBe(0);
    const cleared = await metadata_of(client_id);
    expect(cleared).not.toHaveProperty("groups_prefix");
    expect(cleared).not.toHaveProperty("groups_prefix_strip");
    expect(cleared).not.toHaveProperty("allowed_groups");
    expect(cleared.groups_claim).toBe("k8s_groups");

    const bad = await box.run(["clients", "update", client_id, "--groups-claim", "iss"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('groups_claim "iss" is a registered claim name');
    expect((await metadata_of(client_id)).groups_claim).toBe("k8s_groups");
    expect((await box.run(["clients", "update", client_id, "--clear", "client_name"])).stderr).toContain('--clear "client_name" is not one of');
    expect((await box.run(["clients", "update", client_id])).code).toBe(2);
    expect((await box.run(["clients", "update", "no-such-client", "--groups-claim", "g"])).stderr).toContain('no client "no-such-client"');
  });

  test("help documents the commands", async () => {
    const help = await box.run(["groups", "--help"]);
    // The help names the arguments as the usage errors do (`missing argument <user>`).
    expect(help.stdout).toContain("idp groups members add <group> <user>");
    expect((await box.run(["clients", "--help"])).stdout).toContain("--allowed-group");
  });
});
