/**
 * The directory as an application uses it, through python ldap3 (tests/ldap/ldap3_app.py): the
 * root DSE before a bind, StartTLS, the service account's bind and search for
 * `(&(objectClass=inetOrgPerson)(uid=alice))`, the user's bind to check the password, memberOf
 * and the groups of a member, a wrong password, a write, paged results. On SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { execFile, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test_databases } from "../store/pg.ts";
import { BASE, groups, people, services, start_ldap_provider, type LdapProvider } from "./server.ts";

/** Debian's interpreter, where python3-ldap3 is installed (another python3 on the PATH may lack it). */
const PYTHON = "/usr/bin/python3";
const SCRIPT = fileURLToPath(new URL("./ldap3_app.py", import.meta.url));

function has_ldap3(): boolean {
  try {
    execFileSync(PYTHON, ["-c", "import ldap3"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function run_app(t: LdapProvider, username: string): Promise<Record<string, unknown>> {
  const args = [SCRIPT, "127.0.0.1", String(t.ldap_port), BASE, services("gitea"), t.gitea, username, t.password, t.cert];
  return new Promise((resolve, reject) => {
    execFile(PYTHON, args, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`ldap3_app.py failed: ${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

const available = has_ldap3();
if (!available) test.skip("python3-ldap3 is not installed (apt-get install python3-ldap3): the ldap3 application test is skipped", () => {});

for (const database of available ? await test_databases() : []) {
  describe(`python ldap3 on ${database.name}`, () => {
    let t: LdapProvider;
    let drop: () => Promise<void>;
    beforeAll(async () => {
      const db = await database.url();
      drop = db.drop;
      t = await start_ldap_provider(db.url === "" ? {} : { database_url: db.url });
    });
    afterAll(async () => {
      await t?.stop();
      await drop?.();
    });

    test("an application finds alice, checks her password by binding as her, and reads her groups", async () => {
      const out = await run_app(t, "alice");
      expect(out).toMatchObject({
        start_tls: true,
        service_bind: true,
        whoami: `dn:${services("gitea")}`,
        found: [{ dn: people("alice"), uid: ["alice"], mail: ["alice@example.com"], memberOf: [groups("admins"), groups("devs")], entryUUID: t.users.alice.id }],
        user_bind: true,
        user_whoami: `dn:${people("alice")}`,
        wrong_bind: false,
        wrong_result: 49,
        groups: ["admins", "devs"],
        add_result: 53,
        anonymous_search: 50,
      });
      expect(out.root_dse).toMatchObject({ namingContexts: [BASE], supportedLDAPVersion: ["3"], supportedExtension: ["1.3.6.1.4.1.1466.20037", "1.3.6.1.4.1.4203.1.11.3"] });
      // ldap3's generator yields each page's entries in its own order: every entry once is what counts.
      expect((out.paged_dns as string[]).toSorted()).toEqual(
        [BASE, `ou=people,${BASE}`, `ou=groups,${BASE}`, people("alice"), people("bob"), people("carol"), groups("admins"), groups("devs")].toSorted(),
      );
    });

    test("a user unknown to the directory is not found, so the application checks no password", async () => {
      const out = await run_app(t, "dave");
      expect(out.found).toEqual([]);
      expect(out.user_bind).toBeUndefined();
    });
  });
}
