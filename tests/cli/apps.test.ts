/**
 * `idp apps add|list|show|update|remove` (forward authentication): what is stored, the rules'
 * text form, bad input refused naming the flag and changing nothing, the warnings about the
 * cookie domain, and the audit.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { AuditEvent, ProtectedAppRow } from "../../src/store/types.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";

let box: Sandbox;
const DOMAIN = { IDP_ISSUER: "https://id.example.com", IDP_FORWARD_AUTH_COOKIE_DOMAIN: "example.com" };
beforeAll(async () => {
  box = sandbox();
  for (const group of ["admins", "Staff", "finance"]) expect((await box.run(["groups", "add", group])).code).toBe(0);
});
afterAll(() => box.cleanup());

describe("idp apps", () => {
  test("add with groups, a second factor and rules; list, show, update, remove; audited", async () => {
    const added = await box.run(
      [
        "apps",
        "add",
        "grafana",
        "--url",
        "https://Grafana.Example.com/",
        "--allowed-group",
        "staff",
        "--rule",
        "/admin=admins+2fa",
        "--rule",
        "/public=*",
        "--rule",
        "/billing=finance,admins",
        "--json",
      ],
      { env: DOMAIN },
    );
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.json<ProtectedAppRow>()).toMatchObject({
      name: "grafana",
      url: "https://grafana.example.com",
      host: "grafana.example.com",
      path: "/",
      // As the group spells itself.
      allowed_groups: ["Staff"],
      require_2fa: false,
      rules: [
        { prefix: "/admin", groups: ["admins"], require_2fa: true },
        { prefix: "/billing", groups: ["finance", "admins"], require_2fa: false },
        { prefix: "/public", groups: [], require_2fa: false },
      ],
    });
    const wiki = await box.run(["apps", "add", "wiki", "--url", "https://example.com:8443/wiki", "--require-2fa"], { env: DOMAIN });
    expect(wiki.stdout).toContain("Registered application wiki at https://example.com:8443/wiki (any signed-in user, with a second factor).");

    const list = await box.run(["apps", "list"]);
    expect(list.stdout).toMatch(/NAME\s+URL\s+GROUPS\s+2FA\s+RULES/);
    expect(list.stdout).toMatch(/grafana\s+https:\/\/grafana\.example\.com\s+Staff\s+no\s+3/);
    expect(list.stdout).toMatch(/wiki\s+https:\/\/example\.com:8443\/wiki\s+\*\s+yes\s+0/);
    const show = await box.run(["apps", "show", "grafana"]);
    expect(show.stdout).toMatch(/rules:\s+\/admin=admins\+2fa \/billing=finance,admins \/public=\*/);
    expect(show.stdout).toMatch(/allowed_groups:\s+Staff/);

    const updated = await box.run(["apps", "update", "grafana", "--allowed-group", "*", "--require-2fa", "on", "--rule", "/admin=admins"]);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain("Updated application grafana: allowed_groups, require_2fa, rules.");
    const stored = await with_store(box, (store) => store.get_protected_app("grafana"));
    expect(stored).toMatchObject({ allowed_groups: [], require_2fa: true, rules: [{ prefix: "/admin", groups: ["admins"], require_2fa: false }] });
    expect((await box.run(["apps", "update", "grafana", "--clear-rules"])).code).toBe(0);
    expect((await with_store(box, (store) => store.get_protected_app("grafana")))!.rules).toEqual([]);

    expect((await box.run(["apps", "remove", "wiki"])).stdout).toContain("Removed application wiki");
    const gone = await box.run(["apps", "show", "wiki"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('no application "wiki"');
    const events = await with_store(box, (store) => store.list_audit_events({}));
    const ours = events.filter((e: AuditEvent) => e.type.startsWith("protected_app_"));
    expect(ours.map((e) => e.type).sort()).toEqual(["protected_app_created", "protected_app_created", "protected_app_deleted", "protected_app_updated", "protected_app_updated"]);
    expect(ours.every((e) => e.details?.via === "cli")).toBe(true);
  });

  test("bad input names the flag and registers nothing", async () => {
    const cases: [string[], string][] = [
      [["apps", "add", "Bad Name", "--url", "https://x.example.com"], "NAME: "],
      [["apps", "add", "x"], "--url: is required"],
      [["apps", "add", "x", "--url", "ftp://x.example.com"], "--url: must be an http or https URL"],
      [["apps", "add", "x", "--url", "https://x.example.com/?a=1"], "--url: must not have a query"],
      [["apps", "add", "x", "--url", "https://u:p@x.example.com"], "--url: must not contain a user name or password"],
      [["apps", "add", "x", "--url", "x.example.com"], '--url: "x.example.com" is not an absolute URL'],
      [["apps", "add", "x", "--url", "https://x.example.com", "--allowed-group", "nobody"], '--allowed-group: no group "nobody" (create it first)'],
      [["apps", "add", "x", "--url", "https://x.example.com", "--rule", "/admin"], '--rule: "/admin" is not a rule: write PREFIX=GROUPS'],
      [["apps", "add", "x", "--url", "https://x.example.com", "--rule", "admin=admins"], '--rule: "admin" is not a path prefix'],
      [["apps", "add", "x", "--url", "https://x.example.com", "--rule", "/a/../b=admins"], '--rule: "/a/../b" is not a path prefix'],
      [["apps", "add", "x", "--url", "https://x.example.com", "--rule", "/admin/=admins"], '--rule: "/admin/" is not a path prefix'],
      [["apps", "add", "x", "--url", "https://x.example.com", "--rule", "/admin="], "--rule: rule /admin: name the groups"],
      [["apps", "add", "x", "--url", "https://x.example.com", "--rule", "/admin=ghosts"], '--rule: no group "ghosts" (create it first)'],
      [["apps", "add", "x", "--url", "https://x.example.com", "--rule", "/a=admins", "--rule", "/a=*"], "--rule: two rules for /a"],
      [["apps", "add", "x", "--url", "https://x.example.com/app", "--rule", "/other=admins"], "--rule: rule /other is outside the application's path /app"],
      [["apps", "add", "grafana", "--url", "https://other.example.com"], "application grafana is registered already"],
      [["apps", "add", "x", "--url", "https://grafana.example.com"], "another application is registered at grafana.example.com"],
      [["apps", "update", "grafana"], "apps update needs a change"],
      [["apps", "update", "grafana", "--require-2fa", "maybe"], '--require-2fa "maybe" is not one of on, off'],
      [["apps", "update", "nothing", "--require-2fa", "on"], 'no application "nothing"'],
      [["apps", "remove", "nothing"], 'no application "nothing"'],
    ];
    for (const [argv, message] of cases) {
      const result = await box.run(argv);
      expect({ argv, code: result.code > 0 }).toEqual({ argv, code: true });
      expect(result.stderr).toContain(message);
    }
    expect(await with_store(box, (store) => store.get_protected_app("x"))).toBeNull();
    expect((await with_store(box, (store) => store.get_protected_app("grafana")))!.url).toBe("https://grafana.example.com");
  });

  test("a new URL keeps the rules only when they lie under its path", async () => {
    expect((await box.run(["apps", "add", "docs", "--url", "https://example.com/docs", "--rule", "/docs/admin=admins"])).code).toBe(0);
    const moved = await box.run(["apps", "update", "docs", "--url", "https://example.com/manual"]);
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain("--rule: rule /docs/admin would be outside the new path /manual");
    expect((await box.run(["apps", "update", "docs", "--url", "https://example.com/manual", "--rule", "/manual/admin=admins"])).code).toBe(0);
  });

  test("warns when forward authentication is off, or the host is outside the cookie domain", async () => {
    const off = await box.run(["apps", "add", "one", "--url", "https://one.example.com"]);
    expect(off.code).toBe(0);
    expect(off.stderr).toContain("IDP_FORWARD_AUTH_COOKIE_DOMAIN is not set");
    const outside = await box.run(["apps", "add", "two", "--url", "https://two.example.org"], { env: DOMAIN });
    expect(outside.code).toBe(0);
    expect(outside.stderr).toContain("two.example.org is not in IDP_FORWARD_AUTH_COOKIE_DOMAIN (example.com): it gets a cookie of its own through its callback");
    expect(outside.stderr).toContain("route https://two.example.org/.idp/callback to the provider");
  });

  test("idp config check warns when forward authentication is on without a trusted proxy", async () => {
    const untrusted = await box.run(["config", "check"], { env: DOMAIN });
    expect(untrusted.stderr).toContain("forward authentication is on (IDP_FORWARD_AUTH_COOKIE_DOMAIN) but IDP_TRUST_PROXY is off");
    const trusted = await box.run(["config", "check"], { env: { ...DOMAIN, IDP_TRUST_PROXY: "true" } });
    expect(trusted.stderr).not.toContain("forward authentication");
    const outside = await box.run(["config", "check"], { env: { ...DOMAIN, IDP_ISSUER: "https://id.example.org" } });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain("the issuer's host id.example.org is not in example.com");
  });
});
