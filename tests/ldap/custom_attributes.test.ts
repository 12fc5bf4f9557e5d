/**
 * Custom user attributes on LDAP user entries (oidc/ldap/custom_attributes.ts), through Debian's
 * ldapsearch: under their claim name when it is a valid attribute description; a list as several
 * values, a boolean TRUE/FALSE, a number filterable as an integer; returned with `*` or by name
 * (any case), never for a claim with `_` or one that is a standard type's name; filters match
 * them (equality, substrings, presence, ordering, negation).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { add_attribute } from "../../src/oidc/attributes/definitions.ts";
import { BASE, people, services, start_ldap_provider, type LdapProvider } from "./server.ts";
import { has_ldap_utils, ldap_tool, parse_ldif } from "./tools.ts";

if (!has_ldap_utils()) {
  test.skip("ldap-utils is not installed (apt-get install ldap-utils): the custom attribute tests are skipped", () => {});
} else {
  describe("LDAP: custom attributes", () => {
    let t: LdapProvider;
    beforeAll(async () => {
      t = await start_ldap_provider();
      const now = Math.floor(Date.now() / 1000);
      await add_attribute(t.store, { name: "department", type: "string", scope: "org", claim: "dept" }, now);
      await add_attribute(t.store, { name: "teams", type: "string[]", scope: "org", claim: "teams" }, now);
      await add_attribute(t.store, { name: "badge", type: "number", scope: "org", claim: "badge-number" }, now);
      await add_attribute(t.store, { name: "contractor", type: "boolean", scope: "org" }, now);
      // Not LDAP-safe: `_` is not in an attribute description.
      await add_attribute(t.store, { name: "cost_center", type: "string", scope: "org" }, now);
      // The name of a standard type: the standard one stays.
      await add_attribute(t.store, { name: "ou", type: "string", scope: "org" }, now);
      await t.store.set_user_attribute_values(
        t.users.alice.id,
        { department: "Ops", teams: ["red", "blue"], badge: 4711, contractor: false, cost_center: "CC-1", ou: "Finance" },
        now,
      );
      await t.store.set_user_attribute_values(t.users.bob.id, { department: "Sales", badge: 12, contractor: true }, now);
    });
    afterAll(async () => {
      await t?.stop();
    });

    const search = (filter: string, attributes: string[] = []) =>
      ldap_tool(
        "ldapsearch",
        ["-LLL", "-o", "ldif-wrap=no", "-H", t.ldap_url, "-x", "-D", services("gitea"), "-w", t.gitea, "-b", `ou=people,${BASE}`, filter, ...attributes],
        t.cert,
      );
    const dns = async (filter: string) => {
      const run = await search(filter, ["1.1"]);
      expect({ filter, code: run.code, stderr: run.stderr }).toEqual({ filter, code: 0, stderr: "" });
      return parse_ldif(run.stdout).map((e) => e.dn);
    };

    test("returned with * under their claim names: lists as several values, booleans TRUE/FALSE; never a claim with _ or a standard type's name", async () => {
      const run = await search("(uid=alice)", ["*"]);
      expect(run.code).toBe(0);
      const [alice] = parse_ldif(run.stdout);
      expect(alice!.attributes).toMatchObject({ dept: ["Ops"], teams: ["red", "blue"], "badge-number": ["4711"], contractor: ["FALSE"] });
      expect(Object.keys(alice!.attributes)).not.toContain("cost_center");
      expect(Object.keys(alice!.attributes)).not.toContain("ou");
      expect(run.stdout).not.toContain("Finance");
      expect(run.stdout).not.toContain("CC-1");
    });

    test("asked for by name (any case) they come alone; without * or their name they do not", async () => {
      const named = parse_ldif((await search("(uid=alice)", ["DEPT", "Teams"])).stdout)[0]!;
      expect(named.attributes).toEqual({ dept: ["Ops"], teams: ["red", "blue"] });
      const other = parse_ldif((await search("(uid=alice)", ["mail"])).stdout)[0]!;
      expect(Object.keys(other.attributes)).toEqual(["mail"]);
    });

    test("filters match them: equality ignoring case, substrings, presence, integer ordering, booleans, negation", async () => {
      expect(await dns("(dept=ops)")).toEqual([people("alice")]);
      expect(await dns("(teams=BLUE)")).toEqual([people("alice")]);
      expect(await dns("(dept=Sa*)")).toEqual([people("bob")]);
      expect(await dns("(teams=*)")).toEqual([people("alice")]);
      expect(await dns("(badge-number>=100)")).toEqual([people("alice")]);
      expect(await dns("(badge-number<=100)")).toEqual([people("bob")]);
      expect(await dns("(contractor=TRUE)")).toEqual([people("bob")]);
      expect(await dns("(&(objectClass=inetOrgPerson)(!(dept=ops)))")).toEqual([people("bob"), people("carol")]);
      // `ou` stays the standard type: the attribute of that name is not a value of it.
      expect(await dns("(ou=Finance)")).toEqual([]);
      // A claim with `_` cannot even be asked for: LDAP clients refuse the filter.
      expect((await search("(cost_center=*)")).stderr).toContain("Bad search filter");
    });

    test("ldapcompare knows them on the entries that carry them", async () => {
      const compare = (dn: string, assertion: string) => ldap_tool("ldapcompare", ["-H", t.ldap_url, "-x", "-D", services("gitea"), "-w", t.gitea, dn, assertion], t.cert);
      expect((await compare(people("alice"), "dept:OPS")).stdout).toContain("TRUE");
      expect((await compare(people("alice"), "teams:green")).stdout).toContain("FALSE");
      const none = await compare(people("carol"), "dept:Ops");
      expect(none.stdout + none.stderr).toContain("No such attribute (16)");
      const unknown = await compare(people("alice"), "nosuchthing:x");
      expect(unknown.stdout + unknown.stderr).toContain("Undefined attribute type (17)");
    });
  });
}
