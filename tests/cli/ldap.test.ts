/**
 * `idp ldap service-accounts add|list|rotate|remove` (src/cli/ldap.ts): the bind DN from
 * IDP_LDAP_BASE_DN, a password shown once and stored as its SHA-256, a group that must exist,
 * bad names refused naming the rule, every change audited and never a password in the audit.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(async () => {
  box = sandbox();
  box.env.IDP_LDAP_BASE_DN = "dc=example,dc=com";
  expect((await box.run(["groups", "add", "devs"])).code).toBe(0);
});
afterAll(() => box.cleanup());

type Shown = { name: string; bind_dn: string; group: string | null; password?: string };

describe("idp ldap service-accounts", () => {
  test("add prints the bind DN and a 256-bit password once; only its SHA-256 is stored", async () => {
    const added = await box.run(["ldap", "service-accounts", "add", "gitea"]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("Created service account gitea.");
    expect(added.stdout).toMatch(/bind_dn:\s+cn=gitea,ou=services,dc=example,dc=com/);
    const password = /password:\s+(\S+)/.exec(added.stdout)![1]!;
    expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(added.stdout).toContain("shown only once");
    const stored = await with_store(box, (store) => store.get_ldap_service_account("gitea"));
    expect(stored).toMatchObject({ name: "gitea", secret_hash: sha256(password), group_name: null });
    // list never shows it again.
    const listed = await box.run(["ldap", "service-accounts", "list", "--json"]);
    expect(listed.stdout).not.toContain(password);
    expect(listed.stdout).not.toContain(sha256(password));
  });

  test("--group limits the account to an existing group; a missing group or a taken name is refused", async () => {
    const added = (await box.run(["ldap", "service-accounts", "add", "grafana", "--group", "DEVS", "--json"])).json<Shown>();
    expect(added).toMatchObject({ name: "grafana", bind_dn: "cn=grafana,ou=services,dc=example,dc=com", group: "devs" });
    const missing = await box.run(["ldap", "service-accounts", "add", "wiki", "--group", "nope"]);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining('no group "nope"') });
    const taken = await box.run(["ldap", "service-accounts", "add", "GITEA"]);
    expect(taken).toMatchObject({ code: 1, stderr: expect.stringContaining("exists already") });
    expect(await with_store(box, (store) => store.get_ldap_service_account("wiki"))).toBeNull();
  });

  test("a name a DN would have to escape is refused, naming the rule", async () => {
    for (const bad of ["a,b", "a=b", "_x", "sp ace", "é", "x".repeat(65)]) {
      const refused = await box.run(["ldap", "service-accounts", "add", bad]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("1 to 64 ASCII letters, digits or . _ -");
    }
  });

  test("list shows each account's bind DN and group", async () => {
    const list = await box.run(["ldap", "service-accounts", "list"]);
    expect(list.stdout).toMatch(/gitea\s+cn=gitea,ou=services,dc=example,dc=com\s+\(whole directory\)/);
    expect(list.stdout).toMatch(/grafana\s+cn=grafana,ou=services,dc=example,dc=com\s+devs/);
  });

  test("rotate prints a new password; the old one no longer matches", async () => {
    const before = await with_store(box, (store) => store.get_ldap_service_account("gitea"));
    const rotated = (await box.run(["ldap", "service-accounts", "rotate", "gitea", "--json"])).json<Shown>();
    const after = await with_store(box, (store) => store.get_ldap_service_account("gitea"));
    expect(after!.secret_hash).toBe(sha256(rotated.password!));
    expect(after!.secret_hash).not.toBe(before!.secret_hash);
    expect((await box.run(["ldap", "service-accounts", "rotate", "nope"])).stderr).toContain('no service account "nope"');
  });

  test("remove deletes the account; removing it again says there is none", async () => {
    expect((await box.run(["ldap", "service-accounts", "remove", "grafana"])).stdout).toContain("Removed service account grafana.");
    expect((await box.run(["ldap", "service-accounts", "remove", "grafana"])).stderr).toContain('no service account "grafana"');
  });

  test("each change is audited, without the password", async () => {
    const events = await with_store(box, (store) => store.list_audit_events({}));
    const types = events.filter((e) => e.type.startsWith("ldap_")).map((e) => e.type);
    expect(types.sort()).toEqual(["ldap_service_account_created", "ldap_service_account_created", "ldap_service_account_removed", "ldap_service_account_rotated"]);
    for (const event of events) expect(JSON.stringify(event.details)).not.toMatch(/[A-Za-z0-9_-]{43}/);
  });
});
