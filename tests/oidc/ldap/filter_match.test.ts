/**
 * Filter evaluation (src/oidc/ldap/filter_match.ts, RFC 4511 §4.5.1.7): the three values TRUE,
 * FALSE and Undefined and how and/or/not combine them, each assertion by its attribute's
 * matching rules (schema.ts), and extensible match as applications write it for memberOf.
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import type { Filter } from "../../../src/oidc/ldap/filter.ts";
import { matches, type Entry } from "../../../src/oidc/ldap/filter_match.ts";

const alice: Entry = {
  dn: "uid=alice,ou=people,dc=example,dc=com",
  attributes: {
    objectClass: ["top", "person", "organizationalPerson", "inetOrgPerson", "posixAccount"],
    uid: ["alice"],
    cn: ["Alice  Liddell"],
    mail: ["Alice@Example.com"],
    telephoneNumber: ["+1 555-0100"],
    memberOf: ["cn=admins,ou=groups,dc=example,dc=com"],
    uidNumber: ["100000"],
    entryUUID: ["e8e426a0-10da-4e11-b3c0-e1e67584db3b"],
    createTimestamp: ["20250101120000Z"],
  },
};

const eq = (attribute: string, value: string): Filter => ({ type: "equal", attribute, value });
const not = (filter: Filter): Filter => ({ type: "not", filter });
const and = (...filters: Filter[]): Filter => ({ type: "and", filters });
const or = (...filters: Filter[]): Filter => ({ type: "or", filters });
const sub = (attribute: string, initial: string | null, any: string[], final: string | null): Filter => ({ type: "substrings", attribute, initial, any, final });
const ext = (rule: string | null, attribute: string | null, value: string, dn_attributes = false): Filter => ({ type: "extensible", rule, attribute, value, dn_attributes });

describe("three-valued logic (§4.5.1.7)", () => {
  test("an unknown attribute is Undefined: neither it nor its negation matches", () => {
    expect(matches(eq("userPassword", "x"), alice)).toBe(false);
    expect(matches(not(eq("userPassword", "x")), alice)).toBe(false);
    // present on an attribute nobody holds is FALSE, so its negation is TRUE.
    expect(matches(not({ type: "present", attribute: "userPassword" }), alice)).toBe(true);
  });

  test("and: FALSE wins over Undefined; or: TRUE wins over Undefined; the empty ones are absolute (RFC 4526)", () => {
    expect(matches(not(and(eq("uid", "bob"), eq("nope", "x"))), alice)).toBe(true);
    expect(matches(not(and(eq("uid", "alice"), eq("nope", "x"))), alice)).toBe(false);
    expect(matches(or(eq("nope", "x"), eq("uid", "alice")), alice)).toBe(true);
    expect(matches(not(or(eq("nope", "x"), eq("uid", "bob"))), alice)).toBe(false);
    expect(matches(and(), alice)).toBe(true);
    expect(matches(or(), alice)).toBe(false);
  });
});

describe("assertions by matching rule", () => {
  test("equality: case and insignificant spaces ignored for text, option names, aliases and OIDs", () => {
    expect(matches(eq("objectclass", "INETORGPERSON"), alice)).toBe(true);
    expect(matches(eq("CN", "alice liddell"), alice)).toBe(true);
    expect(matches(eq("2.5.4.3", " Alice Liddell "), alice)).toBe(true);
    expect(matches(eq("mail", "alice@example.COM"), alice)).toBe(true);
    expect(matches(eq("cn;lang-en", "Alice Liddell"), alice)).toBe(false);
    expect(matches(eq("telephoneNumber", "+15550100"), alice)).toBe(true);
    expect(matches(eq("memberOf", "CN=Admins, OU=Groups, DC=Example, DC=Com"), alice)).toBe(true);
    expect(matches(eq("entryUUID", "E8E426A0-10DA-4E11-B3C0-E1E67584DB3B"), alice)).toBe(true);
  });

  test("ordering: numbers as numbers, times as times; none for DNs (Undefined)", () => {
    expect(matches({ type: "greater_or_equal", attribute: "uidNumber", value: "99999" }, alice)).toBe(true);
    expect(matches({ type: "less_or_equal", attribute: "uidNumber", value: "9" }, alice)).toBe(false);
    expect(matches({ type: "greater_or_equal", attribute: "uidNumber", value: "ten" }, alice)).toBe(false);
    expect(matches(not({ type: "greater_or_equal", attribute: "uidNumber", value: "ten" }), alice)).toBe(false);
    expect(matches({ type: "greater_or_equal", attribute: "createTimestamp", value: "202501011100Z" }, alice)).toBe(true);
    expect(matches({ type: "less_or_equal", attribute: "createTimestamp", value: "20250101110000-0200" }, alice)).toBe(true);
    expect(matches({ type: "less_or_equal", attribute: "createTimestamp", value: "20250101130000+0200" }, alice)).toBe(false);
    expect(matches(not({ type: "greater_or_equal", attribute: "memberOf", value: "cn=a" }), alice)).toBe(false);
    expect(matches({ type: "greater_or_equal", attribute: "cn", value: "ALICE" }, alice)).toBe(true);
  });

  test("substrings: initial, any in order, final; none for integers", () => {
    expect(matches(sub("cn", "ali", [], null), alice)).toBe(true);
    expect(matches(sub("cn", null, ["ce l", "dd"], "ELL"), alice)).toBe(true);
    expect(matches(sub("cn", null, ["dd", "ce"], null), alice)).toBe(false);
    expect(matches(sub("cn", "alice", [], "alice"), alice)).toBe(false);
    expect(matches(sub("mail", null, ["@example."], null), alice)).toBe(true);
    expect(matches(not(sub("uidNumber", "1", [], null)), alice)).toBe(false);
  });

  test("extensible match: memberOf with distinguishedNameMatch, the in-chain rule or none; dnAttributes; unknown rules Undefined", () => {
    const admins = "cn=admins,ou=groups,dc=example,dc=com";
    expect(matches(ext(null, "memberOf", admins), alice)).toBe(true);
    expect(matches(ext("1.2.840.113556.1.4.1941", "memberOf", admins.toUpperCase()), alice)).toBe(true);
    expect(matches(ext("distinguishedNameMatch", "memberOf", admins), alice)).toBe(true);
    expect(matches(ext("2.5.13.1", null, admins), alice)).toBe(true);
    expect(matches(ext("1.2.840.113556.1.4.1941", "memberOf", "cn=others,ou=groups,dc=example,dc=com"), alice)).toBe(false);
    expect(matches(not(ext("1.2.3.4", "memberOf", admins)), alice)).toBe(false);
    expect(matches(not(ext("2.5.13.1", "cn", admins)), alice)).toBe(false);
    expect(matches(ext(null, "ou", "people", true), alice)).toBe(true);
    expect(matches(ext(null, "ou", "people"), alice)).toBe(false);
  });
});
