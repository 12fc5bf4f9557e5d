/** SCIM filters (RFC 7644 §3.4.2.2): the RFC's examples, named abuse cases, and property tests. */
import fc from "fast-check";
import { describe, expect, test } from "../../helpers/test_api.ts";
import { ScimError } from "../../../src/oidc/scim/errors.ts";
import { matches, parse_filter } from "../../../src/oidc/scim/filter.ts";

const user = {
  id: "2819c223",
  userName: "bjensen",
  name: { familyName: "O'Malley", givenName: "Barbara" },
  emails: [{ value: "bjensen@example.com", type: "work", primary: true }],
  active: true,
  meta: { lastModified: "2011-05-13T04:42:35Z" },
};

const scim_type = (text: string) => {
  try {
    parse_filter("User", text);
    return null;
  } catch (error) {
    return error instanceof ScimError ? error.scim_type : "other";
  }
};

describe("SCIM filters", () => {
  test("the RFC 7644 §3.4.2.2 examples on the attributes kept parse and match as the RFC says", () => {
    const yes = [
      'userName eq "bjensen"',
      'name.familyName co "O\'Malley"',
      'userName sw "B"',
      'urn:ietf:params:scim:schemas:core:2.0:User:userName sw "b"',
      "name.familyName pr",
      'meta.lastModified gt "2011-05-13T04:42:34Z"',
      'meta.lastModified ge "2011-05-13T04:42:34Z"',
      'emails[type eq "work" and value co "@example.com"]',
      'userName eq "BJENSEN"',
      'not (userName eq "x") and active eq true',
      'emails co "example.com" or emails.value co "example.org"',
    ];
    for (const text of yes) expect([text, matches(parse_filter("User", text), user)]).toEqual([text, true]);
    const no = ['meta.lastModified lt "2011-05-13T04:42:34Z"', 'userName ne "bjensen"', 'id eq "2819C223"', 'emails[type eq "home"]'];
    for (const text of no) expect([text, matches(parse_filter("User", text), user)]).toEqual([text, false]);
  });

  test("abuse: deep nesting, huge filters, many terms, unknown attributes, broken syntax are invalidFilter", () => {
    expect(scim_type(`${"(".repeat(5000)}userName eq "x"${")".repeat(5000)}`)).toBe("invalidFilter");
    expect(scim_type(`userName eq "${"a".repeat(10_000)}"`)).toBe("invalidFilter");
    expect(scim_type(Array.from({ length: 60 }, () => 'userName eq "x"').join(" or "))).toBe("invalidFilter");
    expect(scim_type('nickName eq "x"')).toBe("invalidFilter");
    expect(scim_type('urn:evil:attr eq "x"')).toBe("invalidFilter");
    expect(scim_type('__proto__ eq "x"')).toBe("invalidFilter");
    expect(scim_type('userName eq "x" junk')).toBe("invalidFilter");
    expect(scim_type("active lt true")).toBe("invalidFilter");
    expect(scim_type("")).toBe("invalidFilter");
  });

  test("property: any string is either a compiled filter or invalidFilter, never another error", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const result = scim_type(text);
        expect(result === null || result === "invalidFilter").toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  // compValue is a JSON string (RFC 7644 §3.4.2.2): backslashes, quotes and \u escapes included.
  const hostile = fc.oneof(fc.string({ maxLength: 40 }), fc.stringMatching(/^[a\\"b ()[\]]{0,20}$/));

  test("JSON escapes in string values are decoded; a bad escape is invalidFilter", () => {
    expect(matches(parse_filter("User", 'userName eq "a\\"b"'), { userName: 'a"b' })).toBe(true);
    expect(matches(parse_filter("User", 'userName eq "a\\\\" or userName eq "x"'), { userName: "a\\" })).toBe(true);
    expect(matches(parse_filter("User", 'userName eq "\\u0041\\/"'), { userName: "A/" })).toBe(true);
    expect(() => parse_filter("User", 'userName eq "bad\\q"')).toThrow(ScimError);
  });

  test("property: userName eq <s> matches exactly the users whose userName is s, ignoring case", () => {
    fc.assert(
      fc.property(hostile, fc.string({ maxLength: 40 }), (wanted, actual) => {
        const filter = parse_filter("User", `userName eq ${JSON.stringify(wanted)}`);
        expect(matches(filter, { userName: actual })).toBe(actual.toLowerCase() === wanted.toLowerCase());
        expect(matches(filter, { userName: wanted })).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
