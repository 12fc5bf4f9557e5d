/**
 * The LDAP directory, forward authentication and the SAML identity provider in the provider as an
 * operator runs it: the target of IDP_E2E_TARGET (tests/helpers/target.ts), which .ci/run sets to
 * the compiled executable and to `deno task idp` (with the Deno permissions the settings need),
 * on SQLite and PostgreSQL. Turned on by settings only (IDP_LDAP_*, IDP_FORWARD_AUTH_*), seeded
 * through the executable's CLI (groups, `idp apps add`, `idp ldap service-accounts add`,
 * `idp saml add --metadata-file -`); reached over HTTP and LDAP only:
 *
 * - ldapsearch over StartTLS as a service account, and ldapwhoami as a user with her password;
 * - the forward-auth check (401/302 unauthenticated, 200 with the Remote-* headers after a sign-in
 *   through the start step, the test playing the proxy and the browser);
 * - the SAML metadata, and a pysaml2 service provider's SP-initiated sign-in.
 *
 * One provider for the file, a handful of requests each: it runs four times in CI.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { create_app } from "../../src/oidc/admin/apps.ts";
import { add_service_account } from "../../src/oidc/admin/ldap_service_accounts.ts";
import { create_saml_service_provider } from "../../src/oidc/admin/saml.ts";
import { Browser, account_login, hidden_field, form_action } from "../helpers/browser.ts";
import { free_port, type TestProvider } from "../helpers/provider.ts";
import type { SubprocessProvider } from "../helpers/subprocess.ts";
import { start_target, type E2eProvider } from "../helpers/target.ts";
import { test_certificate } from "../ldap/server.ts";
import { has_ldap_utils, ldap_tool, parse_ldif } from "../ldap/tools.ts";
import { PySaml2Sp, pysaml2_available } from "../saml/pysaml2.ts";

const BASE = "dc=example,dc=com";
const APP = "http://wiki.idp.test:8080";
const SP = "https://sp.example.test/metadata";
const ACS = "https://sp.example.test/acs";

let t: E2eProvider;
let ldap_url: string;
let cert: string;
let gitea_password: string;

/**
 * The operator's seeding: through the CLI of a process target, through the same admin rules the
 * CLI calls for the in-process provider (which has no CLI of its own).
 */
const admin = {
  async group(name: string, member: string): Promise<void> {
    if ("cli" in t) {
      for (const argv of [
        ["groups", "add", name],
        ["groups", "members", "add", name, member],
      ]) {
        const run = await (t as SubprocessProvider).cli(argv);
        if (run.code !== 0) throw new Error(`idp ${argv.join(" ")}: ${run.stderr}`);
      }
      return;
    }
    const store = (t as TestProvider).store;
    const group = await store.create_group({ name });
    await store.add_group_member(group.id, (await store.get_user_by_username(member))!.id);
  },
  async app(name: string, url: string, group: string): Promise<void> {
    if ("cli" in t) {
      const run = await (t as SubprocessProvider).cli(["apps", "add", name, "--url", url, "--allowed-group", group]);
      if (run.code !== 0) throw new Error(`idp apps add: ${run.stderr}`);
      return;
    }
    await create_app((t as TestProvider).store, name, { url, allowed_groups: [group] }, Math.floor(Date.now() / 1000));
  },
  async service_account(name: string): Promise<string> {
    if ("cli" in t) return (await (t as SubprocessProvider).cli_json<{ password: string }>(["ldap", "service-accounts", "add", name])).password;
    return (await add_service_account((t as TestProvider).store, { name }, Math.floor(Date.now() / 1000))).password;
  },
  async saml(metadata_file: string, name: string): Promise<void> {
    if ("cli" in t) {
      // From standard input: the Deno task grants no read of a file the command line names.
      const run = await (t as SubprocessProvider).cli(["saml", "add", "--metadata-file", "-", "--name", name], readFileSync(metadata_file, "utf8"));
      if (run.code !== 0) throw new Error(`idp saml add: ${run.stderr}`);
      return;
    }
    await create_saml_service_provider((t as TestProvider).store, { metadata_xml: readFileSync(metadata_file, "utf8"), name }, Math.floor(Date.now() / 1000));
  },
};

beforeAll(async () => {
  const tls = test_certificate();
  cert = tls.cert;
  const ldap_port = await free_port();
  ldap_url = `ldap://127.0.0.1:${ldap_port}`;
  t = await start_target({
    issuer_host: "id.idp.test",
    env: {
      IDP_LDAP_LISTEN: `127.0.0.1:${ldap_port}`,
      IDP_LDAP_TLS_CERT: tls.cert,
      IDP_LDAP_TLS_KEY: tls.key,
      IDP_LDAP_BASE_DN: BASE,
      IDP_FORWARD_AUTH_COOKIE_DOMAIN: "idp.test",
      IDP_TRUST_PROXY: "true",
    },
  });
  await admin.group("staff", "alice");
  await admin.app("wiki", APP, "staff");
  gitea_password = await admin.service_account("gitea");
}, 90_000);
afterAll(() => t?.stop(), 30_000);

/** A URL of the issuer, as the test reaches it (the issuer's host is a name only browsers resolve). */
const here = (url: string) => url.replace(t.issuer, t.url);

describe.skipIf(!has_ldap_utils())("the LDAP directory", () => {
  test("ldapsearch over StartTLS as a service account finds alice; ldapwhoami binds as her with her password", async () => {
    const search = await ldap_tool(
      "ldapsearch",
      ["-LLL", "-o", "ldif-wrap=no", "-ZZ", "-H", ldap_url, "-x", "-D", `cn=gitea,ou=services,${BASE}`, "-w", gitea_password, "-b", BASE, "(uid=alice)", "mail", "memberOf"],
      cert,
    );
    expect(search.stderr).toBe("");
    expect(parse_ldif(search.stdout)).toEqual([{ dn: `uid=alice,ou=people,${BASE}`, attributes: { mail: ["alice@example.com"], memberof: [`cn=staff,ou=groups,${BASE}`] } }]);
    const whoami = await ldap_tool("ldapwhoami", ["-ZZ", "-H", ldap_url, "-x", "-D", `uid=alice,ou=people,${BASE}`, "-w", t.password], cert);
    expect(whoami.stdout.trim()).toBe(`dn:uid=alice,ou=people,${BASE}`);
    const wrong = await ldap_tool("ldapwhoami", ["-ZZ", "-H", ldap_url, "-x", "-D", `uid=alice,ou=people,${BASE}`, "-w", "not-her-password"], cert);
    expect(wrong.stderr).toContain("Invalid credentials (49)");
  }, 30_000);
});

describe("forward authentication", () => {
  /** The proxy's question about `url` for a browser with `cookie`. */
  const ask = (url: string, cookie: string | null, nginx = false) => {
    const u = new URL(url);
    const headers: Record<string, string> = nginx
      ? { "x-original-url": url }
      : { "x-forwarded-proto": "http", "x-forwarded-host": u.host, "x-forwarded-uri": `${u.pathname}${u.search}`, "x-forwarded-method": "GET" };
    if (cookie !== null) headers.cookie = cookie;
    return fetch(`${t.url}/forward-auth${nginx ? "?mode=nginx" : ""}`, { headers, redirect: "manual" });
  };

  test("an application registered with `idp apps add`: 302 and 401 to the start step, then 200 with the Remote-* headers after a sign-in", async () => {
    const url = `${APP}/page?q=1`;
    const start = `${t.issuer}/forward-auth/start?rd=${encodeURIComponent(url)}`;
    const caddy = await ask(url, null);
    expect(caddy.status).toBe(302);
    expect(caddy.headers.get("location")).toBe(start);
    const nginx = await ask(url, null, true);
    expect(nginx.status).toBe(401);
    expect(nginx.headers.get("location")).toBe(start);

    const browser = new Browser();
    expect((await browser.get(here(start))).status).toBe(302);
    expect((await account_login(t, browser, "alice", t.password)).status).toBe(303);
    const back = await browser.get(here(start), { "sec-fetch-site": "cross-site" });
    expect(back.status).toBe(302);
    expect(back.headers.get("location")).toBe(url);
    const fa = browser.cookies.get("idp_forward_auth")!;
    const allowed = await ask(url, `idp_forward_auth=${fa}`);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("remote-user")).toBe("alice");
    expect(allowed.headers.get("remote-email")).toBe("alice@example.com");
    expect(allowed.headers.get("remote-groups")).toBe("staff");
  }, 30_000);
});

describe("SAML", () => {
  test("the metadata names the single sign-on service and the signing certificate", async () => {
    const response = await fetch(`${t.url}/saml/metadata`);
    expect(response.status).toBe(200);
    const xml = await response.text();
    expect(xml).toContain(`entityID="${t.issuer}/saml/metadata"`);
    expect(xml).toContain(`Location="${t.issuer}/saml/sso"`);
    expect(xml).toMatch(/<ds:X509Certificate>[A-Za-z0-9+/=\s]+<\/ds:X509Certificate>/);
  });

  test.skipIf(!pysaml2_available)(
    "pysaml2 signs in SP-initiated (HTTP-Redirect) and validates the signed assertion",
    async () => {
      const sp = await PySaml2Sp.create({ entity_id: SP, acs: ACS }, await (await fetch(`${t.url}/saml/metadata`)).text());
      try {
        const file = join(sp.dir, "sp.xml");
        writeFileSync(file, await sp.metadata());
        await admin.saml(file, "Team wiki");
        const request = await sp.request({ binding: "redirect" });
        const browser = new Browser();
        let response = await browser.get(here(request.url!));
        let html = "";
        for (let hop = 0; hop < 6; hop++) {
          if (response.status === 200) {
            html = await response.text();
            break;
          }
          const location = response.headers.get("location")!;
          if (new URL(location).pathname === "/account/login") {
            response = await account_login(t, browser, "alice", t.password);
            continue;
          }
          response = await browser.get(here(location));
        }
        expect(form_action(html)).toBe(ACS);
        const parsed = await sp.response(hidden_field(html, "SAMLResponse")!, { [request.id]: request.url! });
        expect(parsed.error).toBeUndefined();
        expect(parsed).toMatchObject({ issuer: `${t.issuer}/saml/metadata`, in_response_to: request.id, audience: [SP], assertion_signed: true });
        expect(parsed.attributes.uid).toContain("alice");
      } finally {
        sp.cleanup();
      }
    },
    60_000,
  );
});
