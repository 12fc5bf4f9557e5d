/**
 * Reading a service provider's LogoutRequest (src/oidc/saml/logout_request.ts) as hostile input:
 * the fields of a well-formed one, and the named abuse cases — another message type, a comment
 * inside the NameID (CVE-2017-11427's "comment injection"), an EncryptedID, a repeated NameID,
 * too many SessionIndexes, a DTD — each refused as "malformed"; and for any text put into the
 * NameID and SessionIndex, either the same values come back or the request is refused (fast-check).
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import fc from "fast-check";
import { read_logout_request } from "../../../src/oidc/saml/logout_request.ts";
import { SamlRefusal } from "../../../src/oidc/saml/refusal.ts";
import { XmlRejected, escape_xml, parse_xml } from "../../../src/oidc/saml/xml.ts";

const NS = 'xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"';

function logout(inner: string, root = "samlp:LogoutRequest"): string {
  return `<${root} ${NS} ID="_lr1" Version="2.0" IssueInstant="2030-01-01T00:00:00Z" Destination="https://idp.example/saml/slo"><saml:Issuer>https://sp.example/metadata</saml:Issuer>${inner}</${root}>`;
}

const NAME = '<saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">abc</saml:NameID>';

function reason(xml: string): string {
  try {
    read_logout_request(parse_xml(xml).documentElement!);
  } catch (error) {
    if (error instanceof SamlRefusal) return error.reason;
    if (error instanceof XmlRejected) return "xml";
    throw error;
  }
  return "accepted";
}

describe("a LogoutRequest", () => {
  test("its fields: ID, Issuer, NameID with its format, the SessionIndexes, Destination", () => {
    const read = read_logout_request(parse_xml(logout(`${NAME}<samlp:SessionIndex>_s1</samlp:SessionIndex><samlp:SessionIndex>_s2</samlp:SessionIndex>`)).documentElement!);
    expect(read).toEqual({
      id: "_lr1",
      issuer: "https://sp.example/metadata",
      issue_instant: Date.UTC(2030, 0, 1) / 1000,
      not_on_or_after: null,
      destination: "https://idp.example/saml/slo",
      name_id: { value: "abc", format: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent" },
      session_indexes: ["_s1", "_s2"],
    });
  });

  test("abuse cases are refused", () => {
    expect(reason(logout(NAME, "samlp:AuthnRequest"))).toBe("malformed");
    expect(reason(logout("<saml:NameID>admin<!---->@example.com</saml:NameID>"))).toBe("malformed");
    expect(reason(logout("<saml:EncryptedID/>"))).toBe("malformed");
    expect(reason(logout(`${NAME}${NAME}`))).toBe("malformed");
    expect(reason(logout(""))).toBe("malformed");
    expect(reason(logout(`${NAME}${"<samlp:SessionIndex>_s</samlp:SessionIndex>".repeat(17)}`))).toBe("malformed");
    expect(reason(logout(NAME).replace('ID="_lr1"', 'ID="1 2"'))).toBe("malformed");
    expect(reason(logout(NAME).replace('Version="2.0"', 'Version="1.1"'))).toBe("malformed");
    expect(reason(logout(NAME).replace('IssueInstant="2030-01-01T00:00:00Z"', 'IssueInstant="yesterday"'))).toBe("malformed");
    expect(reason(`<!DOCTYPE x [<!ENTITY e "abc">]>${logout("<saml:NameID>&e;</saml:NameID>")}`)).toBe("xml");
  });

  test("any NameID and SessionIndex text comes back as sent, or the request is refused", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 40 }), (value, index) => {
        const xml = logout(`<saml:NameID>${escape_xml(value)}</saml:NameID><samlp:SessionIndex>${escape_xml(index)}</samlp:SessionIndex>`);
        let read: ReturnType<typeof read_logout_request>;
        try {
          read = read_logout_request(parse_xml(xml).documentElement!);
        } catch (error) {
          expect(error instanceof SamlRefusal || error instanceof XmlRejected).toBe(true);
          return;
        }
        expect(read.name_id.value).toBe(
          value
            .trim()
            .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
            .trim(),
        );
        expect(read.session_indexes).toHaveLength(1);
      }),
      { numRuns: 300 },
    );
  });
});
