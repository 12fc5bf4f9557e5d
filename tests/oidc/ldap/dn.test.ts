/**
 * Distinguished names (src/oidc/ldap/dn.ts, RFC 4514) and the tree's places (tree.ts): escapes
 * written and read back, the one key two spellings of a DN share, what a DN names, and the base
 * DN an issuer gives.
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import fc from "fast-check";
import { load_config } from "../../../src/app/config.ts";
import { base_dn_of_host, dn_key, dn_text_key, escape_value, format_dn, parse_dn } from "../../../src/oidc/ldap/dn.ts";
import { group_dn, locate, service_dn, tree_of, user_dn } from "../../../src/oidc/ldap/tree.ts";

describe("parse and format", () => {
  test("any value survives its escapes (RFC 4514 §2.4)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }), (value) => {
        const dn = parse_dn(`uid=${escape_value(value)},ou=people,dc=example,dc=com`);
        expect(dn?.[0]).toEqual([{ type: "uid", value }]);
      }),
      { numRuns: 1000 },
    );
  });

  test("escapes: specials, a leading # or space, a trailing space, hex pairs as UTF-8", () => {
    expect(escape_value('a+b,c"d\\e<f>g;h=i')).toBe('a\\+b\\,c\\"d\\\\e\\<f\\>g\\;h\\=i');
    expect(escape_value("#x ")).toBe("\\#x\\ ");
    expect(parse_dn("cn=Jos\\C3\\A9,dc=x")?.[0]).toEqual([{ type: "cn", value: "José" }]);
    expect(parse_dn("cn=a\\+b+uid=c,dc=x")?.[0]).toEqual([
      { type: "cn", value: "a+b" },
      { type: "uid", value: "c" },
    ]);
    expect(parse_dn("")).toEqual([]);
  });

  test("not DNs: no type, a bad type, an unescaped special, a hex value, a dangling escape, bad UTF-8", () => {
    for (const bad of ["alice", "=x", "1a=b", "cn=a,", 'cn=a"b', "cn=#04016", "cn=a\\", "cn=\\C3\\28", "cn=", "cn=a,,dc=b"]) expect([bad, parse_dn(bad)]).toEqual([bad, null]);
  });

  test("one key for every spelling: case, spaces, aliases, OIDs, RDN order", () => {
    const key = dn_text_key("uid=alice,ou=people,dc=example,dc=com");
    for (const same of [
      "UID=Alice, OU=People, DC=Example, DC=COM",
      "userid=alice,ou=people,dc=example,dc=com",
      "0.9.2342.19200300.100.1.1=alice,2.5.4.11=people,dc=example,domainComponent=com",
      "uid = alice , ou=people,dc=example,dc=com",
    ])
      expect([same, dn_text_key(same)]).toEqual([same, key]);
    expect(dn_text_key("cn=a+uid=b,dc=x")).toBe(dn_text_key("uid=b+cn=a,dc=x"));
    expect(dn_text_key("uid=bob,ou=people,dc=example,dc=com")).not.toBe(key);
    expect(dn_key(parse_dn(format_dn(parse_dn("cn=x\\,y,dc=z")!))!)).toBe(dn_text_key("cn=x\\2cy,dc=z")!);
  });

  test("the base DN of an issuer's host: dc= each label; dc=idp for an address", () => {
    expect(base_dn_of_host("id.example.com")).toBe("dc=id,dc=example,dc=com");
    expect(base_dn_of_host("localhost")).toBe("dc=localhost");
    expect(base_dn_of_host("127.0.0.1")).toBe("dc=idp");
    expect(base_dn_of_host("[::1]")).toBe("dc=idp");
    expect(tree_of(load_config({}, { issuer: "https://example.com" })).base_text).toBe("dc=example,dc=com");
  });
});

describe("what a DN names", () => {
  const tree = tree_of(load_config({}, { ldap: { base_dn: "dc=Example,dc=com" } }));

  test("the root DSE, the suffix, its containers, users, groups and service accounts", () => {
    expect(locate(tree, "")).toEqual({ kind: "root_dse" });
    expect(locate(tree, "DC=example,DC=com")).toEqual({ kind: "base" });
    expect(locate(tree, "ou=People,dc=example,dc=com")).toEqual({ kind: "people" });
    expect(locate(tree, "ou=groups,dc=example,dc=com")).toEqual({ kind: "groups" });
    expect(locate(tree, user_dn(tree, "a+b"))).toEqual({ kind: "user", username: "a+b" });
    expect(locate(tree, group_dn(tree, "team:ops"))).toEqual({ kind: "group", name: "team:ops" });
    expect(locate(tree, service_dn(tree, "gitea"))).toEqual({ kind: "service", name: "gitea" });
    expect(user_dn(tree, "a+b")).toBe("uid=a\\+b,ou=people,dc=Example,dc=com");
  });

  test("names of nothing carry the deepest entry above them (RFC 4511 §4.1.9 matchedDN)", () => {
    expect(locate(tree, "dc=other,dc=com")).toEqual({ kind: "none", matched: "" });
    expect(locate(tree, "dc=com")).toEqual({ kind: "none", matched: "" });
    expect(locate(tree, "ou=nope,dc=example,dc=com")).toEqual({ kind: "none", matched: "dc=Example,dc=com" });
    expect(locate(tree, "cn=alice,ou=people,dc=example,dc=com")).toEqual({ kind: "none", matched: "ou=people,dc=Example,dc=com" });
    expect(locate(tree, "uid=a,uid=b,ou=people,dc=example,dc=com")).toEqual({ kind: "none", matched: "ou=people,dc=Example,dc=com" });
    expect(locate(tree, "ou=services,dc=example,dc=com")).toEqual({ kind: "none", matched: "dc=Example,dc=com" });
    expect(locate(tree, "uid=a+cn=b,ou=people,dc=example,dc=com")).toEqual({ kind: "none", matched: "ou=people,dc=Example,dc=com" });
    expect(locate(tree, "not a dn")).toEqual({ kind: "invalid" });
  });

  test("a base DN that is not one stops the start, naming the setting", () => {
    expect(() => tree_of({ ...load_config({}), ldap: { ...load_config({}).ldap, base_dn: "dc=a,,dc=b" } })).toThrow(/IDP_LDAP_BASE_DN/);
  });
});
