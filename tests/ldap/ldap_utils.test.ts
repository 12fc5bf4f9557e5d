/**
 * The LDAP directory through Debian's OpenLDAP clients (ldapsearch, ldapwhoami, ldapcompare,
 * ldapadd, ldapmodify, ldapdelete, ldapmodrdn): StartTLS and LDAPS, what each identity sees,
 * paged results, compare, writes refused, binds through the sign-in page's throttles, the
 * second-factor policy and the audit. On SQLite and on PostgreSQL (IDP_REQUIRE_POSTGRES=1
 * makes it required).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser, account_login } from "../helpers/browser.ts";
import { test_databases } from "../store/pg.ts";
import { BASE, groups, people, services, start_ldap_provider, type LdapProvider } from "./server.ts";
import { has_ldap_utils, ldap_tool, parse_ldif } from "./tools.ts";

test.skip("sssd or nslcd resolving `getent passwd alice` from the POSIX attributes: they run as root services (a daemon, /etc/nsswitch.conf, /etc/sssd) that a test cannot start; the attributes they read are checked below", () => {});

if (!has_ldap_utils()) {
  test.skip("ldap-utils is not installed (apt-get install ldap-utils): the OpenLDAP client tests are skipped", () => {});
}

for (const database of has_ldap_utils() ? await test_databases() : []) {
  describe(`ldap-utils on ${database.name}`, () => {
    let t: LdapProvider;
    let drop: () => Promise<void>;
    beforeAll(async () => {
      const db = await database.url();
      drop = db.drop;
      t = await start_ldap_provider({ ...(db.url === "" ? {} : { database_url: db.url }), ldap: { posix: true }, config: { login_throttle: { max_failures: 3, delay_ms: 0 } } });
    });
    afterAll(async () => {
      await t?.stop();
      await drop?.();
    });

    const as_gitea = () => ["-x", "-D", services("gitea"), "-w", t.gitea];
    const search = (bind: string[], args: string[], url = t.ldap_url) => ldap_tool("ldapsearch", ["-LLL", "-o", "ldif-wrap=no", "-H", url, ...bind, ...args], t.cert);

    test("ldapwhoami over StartTLS (-ZZ) and over LDAPS, as a service account and as a user (RFC 4532)", async () => {
      const service = await ldap_tool("ldapwhoami", ["-ZZ", "-H", t.ldap_url, ...as_gitea()], t.cert);
      expect(service).toMatchObject({ code: 0, stdout: `dn:${services("gitea")}\n` });
      const user = await ldap_tool("ldapwhoami", ["-H", t.ldaps_url, "-x", "-D", people("alice"), "-w", t.password], t.cert);
      expect(user).toMatchObject({ code: 0, stdout: `dn:${people("alice")}\n` });
      // A DN in another spelling names the same user.
      const spelled = await ldap_tool("ldapwhoami", ["-ZZ", "-H", t.ldap_url, "-x", "-D", "UID=Alice, OU=People, DC=Example, DC=Com", "-w", t.password], t.cert);
      expect(spelled.stdout).toBe(`dn:${people("alice")}\n`);
    });

    test("a client that does not trust the certificate refuses StartTLS", async () => {
      const other_ca = await ldap_tool("ldapwhoami", ["-ZZ", "-H", t.ldap_url, ...as_gitea()], "/etc/ssl/certs/ca-certificates.crt");
      expect(other_ca.code).not.toBe(0);
      expect(other_ca.stderr).toMatch(/TLS|certificate|Connect error/i);
    });

    test("anonymous and unauthenticated binds are refused; wrong password and unknown user answer alike", async () => {
      const anonymous = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url], t.cert);
      expect(anonymous.stderr).toContain("Inappropriate authentication (48)");
      const no_password = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("alice"), "-w", ""], t.cert);
      expect(no_password.stderr).toContain("Server is unwilling to perform (53)");
      const wrong = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("bob"), "-w", "wrong password"], t.cert);
      const unknown = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("nobody"), "-w", "wrong password"], t.cert);
      expect(wrong.stderr).toContain("Invalid credentials (49)");
      expect(unknown.stderr).toBe(wrong.stderr);
      const disabled = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("dave"), "-w", t.password], t.cert);
      expect(disabled.stderr).toContain("Invalid credentials (49)");
    });

    test("a service account reads the tree: inetOrgPerson and posixAccount users with memberOf, groups with member; never a password hash", async () => {
      const all = await search(as_gitea(), ["-ZZ", "-b", BASE, "(objectClass=*)", "*", "+"]);
      expect(all.code).toBe(0);
      const entries = parse_ldif(all.stdout);
      expect(entries.map((e) => e.dn)).toEqual([BASE, `ou=people,${BASE}`, `ou=groups,${BASE}`, people("alice"), people("bob"), people("carol"), groups("admins"), groups("devs")]);
      const alice = entries.find((e) => e.dn === people("alice"))!;
      expect(alice.attributes).toMatchObject({
        objectclass: ["top", "person", "organizationalPerson", "inetOrgPerson", "posixAccount"],
        uid: ["alice"],
        cn: ["Alice Liddell"],
        sn: ["Liddell"],
        givenname: ["Alice"],
        mail: ["alice@example.com"],
        memberof: [groups("admins"), groups("devs")],
        entryuuid: [t.users.alice.id],
        homedirectory: ["/home/alice"],
      });
      // An unverified address is not released (bob); the disabled dave is no entry and no member.
      expect(entries.find((e) => e.dn === people("bob"))!.attributes.mail).toBeUndefined();
      expect(entries.find((e) => e.dn === groups("devs"))!.attributes).toMatchObject({ member: [people("alice"), people("bob")], memberuid: ["alice", "bob"] });
      for (const secret of ["userpassword", "argon2", t.users.carol.totp_secret!]) expect(all.stdout.toLowerCase()).not.toContain(secret.toLowerCase());
    });

    test("POSIX numbers are given once: the same at every search, a user's gidNumber is its own", async () => {
      const first = parse_ldif((await search(as_gitea(), ["-b", BASE, "(|(objectClass=posixAccount)(objectClass=posixGroup))", "uidNumber", "gidNumber"])).stdout);
      const again = parse_ldif((await search(as_gitea(), ["-b", BASE, "(uidNumber>=100000)", "uidNumber", "gidNumber"])).stdout);
      const numbers = Object.fromEntries(first.map((e) => [e.dn, e.attributes.uidnumber?.[0] ?? e.attributes.gidnumber![0]]));
      expect(new Set(Object.values(numbers)).size).toBe(5);
      for (const entry of again) expect(entry.attributes.uidnumber![0]).toBe(numbers[entry.dn]!);
      expect(again).toHaveLength(3);
      const alice = first.find((e) => e.dn === people("alice"))!;
      expect(alice.attributes.gidnumber).toEqual(alice.attributes.uidnumber!);
      const stored = await t.store.ldap_posix_numbers([t.users.alice.id], 100_000);
      expect(String(stored[t.users.alice.id])).toBe(alice.attributes.uidnumber![0]!);
    });

    test("an application's lookups: by uid, by mail, by memberOf (extensible match, in-chain rule), groups of a member", async () => {
      const by_uid = parse_ldif((await search(as_gitea(), ["-b", BASE, "(&(objectClass=inetOrgPerson)(uid=ALICE))", "dn"])).stdout);
      expect(by_uid.map((e) => e.dn)).toEqual([people("alice")]);
      const by_mail = parse_ldif((await search(as_gitea(), ["-b", `ou=people,${BASE}`, "(mail=Carol@Example.com)", "uid"])).stdout);
      expect(by_mail.map((e) => e.attributes.uid![0])).toEqual(["carol"]);
      const admins = parse_ldif((await search(as_gitea(), ["-b", BASE, `(memberOf:1.2.840.113556.1.4.1941:=${groups("admins")})`, "dn"])).stdout);
      expect(admins.map((e) => e.dn)).toEqual([people("alice")]);
      // Gitea's admin filter.
      const gitea_admins = parse_ldif((await search(as_gitea(), ["-b", `ou=people,${BASE}`, `(&(uid=alice)(memberOf=CN=Admins,OU=Groups,${BASE}))`, "dn"])).stdout);
      expect(gitea_admins.map((e) => e.dn)).toEqual([people("alice")]);
      const of_bob = parse_ldif((await search(as_gitea(), ["-b", `ou=groups,${BASE}`, "-s", "one", `(&(objectClass=groupOfNames)(member=${people("bob")}))`, "cn"])).stdout);
      expect(of_bob.map((e) => e.attributes.cn![0])).toEqual(["devs"]);
      const sub = parse_ldif((await search(as_gitea(), ["-b", BASE, "(&(cn=*lid*)(!(uid=bob)))", "dn"])).stdout);
      expect(sub.map((e) => e.dn)).toEqual([people("alice")]);
    });

    test("scopes: base, one level, subtree; a DN that names nothing is noSuchObject with its matchedDN", async () => {
      const base = parse_ldif((await search(as_gitea(), ["-b", people("bob"), "-s", "base", "(objectClass=*)", "uid"])).stdout);
      expect(base.map((e) => e.dn)).toEqual([people("bob")]);
      const one = parse_ldif((await search(as_gitea(), ["-b", BASE, "-s", "one", "(objectClass=*)", "1.1"])).stdout);
      expect(one.map((e) => e.dn)).toEqual([`ou=people,${BASE}`, `ou=groups,${BASE}`]);
      // Subordinate subtree (scope 3) is not offered: protocolError, as RFC 4511 §4.5.1.2 asks of an unknown scope.
      const children = await search(as_gitea(), ["-b", BASE, "-s", "children", "(objectClass=*)", "1.1"]);
      expect(children.code).toBe(2);
      expect(children.stderr).toContain("Protocol error (2)");
      expect(children.stderr).toContain("scope 3 is not supported");
      const missing = await search(as_gitea(), ["-b", people("nobody"), "-s", "base", "(objectClass=*)"]);
      expect(missing.code).toBe(32);
      expect(missing.stdout + missing.stderr).toContain(`ou=people,${BASE}`);
    });

    test("paged results (RFC 2696): pages of two hold every entry once", async () => {
      const paged = await search(as_gitea(), ["-ZZ", "-E", "pr=2/noprompt", "-b", BASE, "(objectClass=*)", "1.1"]);
      expect(paged.code).toBe(0);
      const dns = parse_ldif(paged.stdout).map((e) => e.dn);
      expect(dns).toHaveLength(8);
      expect(new Set(dns).size).toBe(8);
      // Four pages: three ended with a cookie to go on with, the last with an empty one.
      expect(paged.stdout.match(/^# pagedresults: cookie=\S+$/gm)).toHaveLength(3);
      expect(paged.stdout.match(/^# pagedresults: cookie=$/gm)).toHaveLength(1);
    });

    test("size limits: the client's (-z) and the server's, then sizeLimitExceeded", async () => {
      const limited = await search(as_gitea(), ["-z", "2", "-b", BASE, "(objectClass=*)", "1.1"]);
      expect(limited.code).toBe(4);
      expect(parse_ldif(limited.stdout)).toHaveLength(2);
    });

    test("the root DSE names the suffix, LDAPv3, StartTLS, Who am I? and paged results", async () => {
      const dse = parse_ldif((await search(as_gitea(), ["-b", "", "-s", "base", "(objectClass=*)", "+"])).stdout)[0]!;
      expect(dse.attributes).toMatchObject({
        namingcontexts: [BASE],
        supportedldapversion: ["3"],
        supportedextension: ["1.3.6.1.4.1.1466.20037", "1.3.6.1.4.1.4203.1.11.3"],
        supportedcontrol: expect.arrayContaining(["1.2.840.113556.1.4.319"]),
      });
    });

    test("a service account limited to a group sees its members and that group only", async () => {
      const bind = ["-x", "-D", services("grafana"), "-w", t.grafana];
      const seen = parse_ldif((await search(bind, ["-b", BASE, "(|(objectClass=inetOrgPerson)(objectClass=groupOfNames))", "memberOf"])).stdout);
      expect(seen.map((e) => e.dn)).toEqual([people("alice"), people("bob"), groups("devs")]);
      // memberOf still names every group of a visible user (applications map roles from it).
      expect(seen[0]!.attributes.memberof).toEqual([groups("admins"), groups("devs")]);
      const carol = await search(bind, ["-b", people("carol"), "-s", "base", "(objectClass=*)"]);
      expect(carol.code).toBe(32);
    });

    test("a user bound with their password sees their own entry and groups, and nobody else", async () => {
      const bind = ["-x", "-D", people("bob"), "-w", t.password];
      const seen = parse_ldif((await search(bind, ["-b", BASE, "(|(uid=*)(cn=*))", "member"])).stdout);
      expect(seen.map((e) => e.dn)).toEqual([people("bob"), groups("devs")]);
      expect(seen[1]!.attributes.member).toEqual([people("bob")]);
    });

    test("compare (RFC 4511 §4.10): TRUE, FALSE, an attribute the entry lacks, one nobody holds", async () => {
      const compare = (dn: string, assertion: string) => ldap_tool("ldapcompare", ["-x", "-H", t.ldap_url, "-D", services("gitea"), "-w", t.gitea, dn, assertion], t.cert);
      expect((await compare(people("alice"), "mail:ALICE@example.com")).stdout.trim()).toBe("TRUE");
      expect((await compare(groups("devs"), `member:${people("carol")}`)).stdout.trim()).toBe("FALSE");
      // ldapcompare prints the result on stdout and exits with its code.
      expect(await compare(people("bob"), "mail:bob@example.com")).toMatchObject({ code: 16, stdout: expect.stringContaining("No such attribute (16)") });
      expect(await compare(people("alice"), "userPassword:x")).toMatchObject({ code: 17, stdout: expect.stringContaining("Undefined attribute type (17)") });
    });

    test("writes (add, modify, delete, modrdn) answer unwillingToPerform (53) and change nothing", async () => {
      const bind = ["-x", "-H", t.ldap_url, "-D", services("gitea"), "-w", t.gitea];
      const add = await ldap_tool("ldapadd", bind, t.cert, `dn: ${people("mallory")}\nobjectClass: inetOrgPerson\nuid: mallory\ncn: m\nsn: m\n`);
      const modify = await ldap_tool("ldapmodify", bind, t.cert, `dn: ${people("alice")}\nchangetype: modify\nreplace: mail\nmail: evil@example.com\n`);
      const del = await ldap_tool("ldapdelete", [...bind, people("bob")], t.cert);
      const modrdn = await ldap_tool("ldapmodrdn", [...bind, people("bob"), "uid=robert"], t.cert);
      for (const refused of [add, modify, del, modrdn])
        expect(refused).toMatchObject({ code: 53, [refused === modrdn ? "stdout" : "stderr"]: expect.stringContaining("read-only") });
      expect(await t.store.get_user_by_username("mallory")).toBeNull();
      expect((await t.store.get_user_by_username("alice"))!.email).toBe("alice@example.com");
      expect(await t.store.get_user_by_username("bob")).not.toBeNull();
    });

    test("a user whose sign-in needs a second factor is refused (IDP_LDAP_USER_BINDS=single_factor), and audited", async () => {
      const carol = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("carol"), "-w", t.password], t.cert);
      expect(carol.stderr).toContain("Inappropriate authentication (48)");
      expect(carol.stderr).toContain("second factor");
      const events = await t.store.list_audit_events({ user_id: t.users.carol.id });
      expect(events.find((e) => e.type === "ldap_bind")).toMatchObject({ outcome: "failure", details: { reason: "second_factor" } });
    });

    test("binds are audited: service and user successes, a wrong password as a sign-in failure via ldap", async () => {
      const events = await t.store.list_audit_events({});
      expect(events.some((e) => e.type === "ldap_bind" && e.outcome === "success" && e.details?.service === "gitea")).toBe(true);
      expect(events.some((e) => e.type === "ldap_bind" && e.outcome === "success" && e.user_id === t.users.alice.id)).toBe(true);
      expect(events.some((e) => e.type === "login" && e.outcome === "failure" && e.user_id === t.users.bob.id && e.details?.via === "ldap")).toBe(true);
      for (const event of events) expect(JSON.stringify(event)).not.toContain(t.password);
    });

    test("repeated wrong binds get refused like the sign-in page: the same counters lock the page and the directory", async () => {
      const wrong = () => ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("alice"), "-w", "not the password"], t.cert);
      for (let i = 0; i < 3; i++) expect((await wrong()).stderr).toContain("Invalid credentials (49)");
      const right = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("alice"), "-w", t.password], t.cert);
      expect(right.stderr).toContain("Server is unwilling to perform (53)");
      expect(right.stderr).toContain("Too many failed sign-in attempts");
      // The sign-in page, from the same address, is locked by the same counters.
      expect((await account_login({ url: t.served.url }, new Browser(), "alice", t.password)).status).toBe(429);
      const locked = (await t.store.list_audit_events({ user_id: t.users.alice.id })).filter((e) => e.type === "login_locked");
      expect(locked).toHaveLength(1);
    });

    test("and the other way: wrong passwords at the sign-in page lock the user's binds", async () => {
      for (let i = 0; i < 3; i++) expect((await account_login({ url: t.served.url }, new Browser(), "bob", "not the password")).status).toBe(200);
      const right = await ldap_tool("ldapwhoami", ["-x", "-H", t.ldap_url, "-D", people("bob"), "-w", t.password], t.cert);
      expect(right.stderr).toContain("Too many failed sign-in attempts");
    });
  });
}
