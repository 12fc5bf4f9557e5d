/**
 * The pieces an Assertion is made of (src/oidc/saml/): which ACS a request without one gets
 * (SAML Metadata §2.2.3), the NameID of each format, the attributes under both name formats,
 * and the AuthnContextClassRef of each kind of sign-in.
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import { user_attributes } from "../../../src/oidc/saml/attributes.ts";
import { AUTHN_CONTEXT, authn_context_class } from "../../../src/oidc/saml/authn_context.ts";
import { name_id, persistent_id } from "../../../src/oidc/saml/subject.ts";
import { default_acs, parse_sp_metadata } from "../../../src/oidc/saml/sp_metadata.ts";
import type { SamlServiceProviderRow, UserRow } from "../../../src/store/types.ts";
import { sp_metadata } from "../../helpers/saml.ts";

const user = {
  id: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
  username: "alice",
  name: "Alice Liddell",
  given_name: "Alice",
  family_name: "Liddell",
  email: "alice@example.com",
  email_verified: true,
} as unknown as UserRow;

const sp = (over: Partial<SamlServiceProviderRow> = {}) =>
  ({ entity_id: "https://sp.example/md", nameid_format: "persistent", nameid_salt: "salt-1", ...over }) as SamlServiceProviderRow;

describe("the default assertion consumer service", () => {
  test("isDefault true first, else the first without isDefault, else the first", () => {
    const pick = (acs: Parameters<typeof sp_metadata>[0]["acs"]) => default_acs(parse_sp_metadata(sp_metadata({ entity_id: "https://sp.example/md", acs }))).location;
    expect(pick([{ location: "https://sp.example/a", is_default: false }, "https://sp.example/b", { location: "https://sp.example/c", is_default: true }])).toBe(
      "https://sp.example/c",
    );
    expect(pick([{ location: "https://sp.example/a", is_default: false }, "https://sp.example/b"])).toBe("https://sp.example/b");
    expect(
      pick([
        { location: "https://sp.example/a", is_default: false },
        { location: "https://sp.example/b", is_default: false },
      ]),
    ).toBe("https://sp.example/a");
  });
});

describe("NameIDs", () => {
  test("persistent: stable for one service provider, different for another, opaque", () => {
    const one = name_id(sp(), user, "https://idp.example/saml/metadata")!;
    expect(one).toEqual({
      format: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
      value: persistent_id("salt-1", user.id),
      name_qualifier: "https://idp.example/saml/metadata",
      sp_name_qualifier: "https://sp.example/md",
    });
    expect(name_id(sp(), user, "x")!.value).toBe(one.value);
    expect(name_id(sp({ nameid_salt: "salt-2" }), user, "x")!.value).not.toBe(one.value);
    expect(one.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Lengths are hashed in: moving a character between salt and id changes the value.
    expect(persistent_id("ab", "c")).not.toBe(persistent_id("a", "bc"));
  });

  test("transient is new each time; email and unspecified carry the address and the username", () => {
    expect(name_id(sp({ nameid_format: "transient" }), user, "x")!.value).not.toBe(name_id(sp({ nameid_format: "transient" }), user, "x")!.value);
    expect(name_id(sp({ nameid_format: "email" }), user, "x")).toMatchObject({ value: "alice@example.com", format: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" });
    expect(name_id(sp({ nameid_format: "email" }), { ...user, email: null } as unknown as UserRow, "x")).toBeNull();
    expect(name_id(sp({ nameid_format: "unspecified" }), user, "x")!.value).toBe("alice");
  });
});

describe("attributes", () => {
  test("each standard attribute under its plain name (basic) and its OID (uri), groups as memberOf", () => {
    const attributes = user_attributes(user, ["staff", "ops"], {});
    const by = (name: string) => attributes.find((a) => a.name === name);
    expect(by("uid")).toEqual({ name: "uid", name_format: "urn:oasis:names:tc:SAML:2.0:attrname-format:basic", friendly_name: null, values: ["alice"] });
    expect(by("urn:oid:0.9.2342.19200300.100.1.1")).toEqual({
      name: "urn:oid:0.9.2342.19200300.100.1.1",
      name_format: "urn:oasis:names:tc:SAML:2.0:attrname-format:uri",
      friendly_name: "uid",
      values: ["alice"],
    });
    expect(by("mail")?.values).toEqual(["alice@example.com"]);
    expect(by("displayName")?.values).toEqual(["Alice Liddell"]);
    expect(by("givenName")?.values).toEqual(["Alice"]);
    expect(by("sn")?.values).toEqual(["Liddell"]);
    expect(by("memberOf")?.values).toEqual(["staff", "ops"]);
    expect(attributes.length).toBe(12);
  });

  test("a value the user lacks is left out; extra attributes add or replace", () => {
    const attributes = user_attributes({ ...user, family_name: null } as unknown as UserRow, [], { mail: "preferred_username", "urn:oid:2.16.840.1.113730.3.1.3": "sub" });
    const names = attributes.map((a) => a.name);
    expect(names).not.toContain("sn");
    expect(names).not.toContain("memberOf");
    // The operator's mail replaces the standard one (both of its names).
    expect(attributes.filter((a) => a.name === "mail")).toEqual([
      { name: "mail", name_format: "urn:oasis:names:tc:SAML:2.0:attrname-format:basic", friendly_name: null, values: ["alice"] },
    ]);
    expect(names).not.toContain("urn:oid:0.9.2342.19200300.100.1.3");
    expect(attributes.find((a) => a.name === "urn:oid:2.16.840.1.113730.3.1.3")).toMatchObject({
      name_format: "urn:oasis:names:tc:SAML:2.0:attrname-format:uri",
      values: [user.id],
    });
  });
});

describe("AuthnContextClassRef from the amr", () => {
  test("password, multi-factor, passkeys", () => {
    expect(authn_context_class(["pwd"])).toBe(AUTHN_CONTEXT.password);
    expect(authn_context_class(["fed"])).toBe(AUTHN_CONTEXT.password);
    expect(authn_context_class(["pwd", "otp"])).toBe(AUTHN_CONTEXT.multi_factor);
    expect(authn_context_class(["fed", "mfa"])).toBe(AUTHN_CONTEXT.multi_factor);
    expect(authn_context_class(["hwk", "user"])).toBe(AUTHN_CONTEXT.device_passkey);
    expect(authn_context_class(["pwd", "swk", "mfa"])).toBe(AUTHN_CONTEXT.synced_passkey);
  });
});
