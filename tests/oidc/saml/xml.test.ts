/**
 * XML as hostile input (src/oidc/saml/xml.ts): the named attacks on an XML reader are refused
 * before any parse or expansion, with an XmlRejected that says why, and property tests show that
 * whatever bytes arrive the reader answers a Document or an XmlRejected, never anything else.
 */
import { describe, expect, test } from "../../helpers/test_api.ts";
import { deflateRawSync } from "node:zlib";
import fc from "fast-check";
import {
  MAX_DEPTH,
  MAX_MESSAGE_BYTES,
  XmlRejected,
  decode_base64,
  decode_post_message,
  decode_redirect_message,
  escape_xml,
  parse_xml,
  required_child,
  text_of,
} from "../../../src/oidc/saml/xml.ts";

const b64 = (text: string | Uint8Array) => Buffer.from(text).toString("base64");
const deflated = (text: string | Uint8Array) => Buffer.from(deflateRawSync(Buffer.from(text))).toString("base64");

function rejected(run: () => unknown): XmlRejected {
  try {
    run();
  } catch (error) {
    if (error instanceof XmlRejected) return error;
    throw error;
  }
  throw new Error("expected XmlRejected, got a result");
}

const REQUEST = `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_1" Version="2.0" IssueInstant="2030-01-01T00:00:00Z"><saml:Issuer>https://sp.example</saml:Issuer></samlp:AuthnRequest>`;

describe("named abuse cases", () => {
  test("XXE: an external entity is refused before parsing, nothing is read from the file system", () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>`;
    expect(rejected(() => decode_post_message(b64(xxe))).reason).toContain("DTD");
    expect(rejected(() => decode_redirect_message(deflated(xxe))).reason).toContain("DTD");
  });

  test("billion laughs: entity declarations are refused, whatever their case or position", () => {
    let laughs = `<!DOCTYPE lolz [<!ENTITY lol "lol">`;
    for (let i = 1; i < 10; i++) laughs += `<!ENTITY lol${i} "${`&lol${i === 1 ? "" : i - 1};`.repeat(10)}">`;
    laughs += `]><lolz>&lol9;</lolz>`;
    expect(rejected(() => parse_xml(laughs)).reason).toContain("DTD");
    expect(rejected(() => parse_xml(`<!doctype r><r/>`)).reason).toContain("DTD");
    expect(rejected(() => parse_xml(`<r><!ENTITY x "y"></r>`)).reason).toContain("DTD");
  });

  test("oversize: a message past the cap is refused before decoding or parsing", () => {
    const big = `<r>${"a".repeat(MAX_MESSAGE_BYTES)}</r>`;
    expect(rejected(() => decode_post_message(b64(big))).reason).toContain("larger than");
    expect(rejected(() => parse_xml(big)).reason).toContain("larger than");
    // Just under the cap is fine.
    expect(parse_xml(`<r>${"a".repeat(MAX_MESSAGE_BYTES - 100)}</r>`).documentElement?.localName).toBe("r");
  });

  test("deflate bomb: 10 MB of zeros in a few kilobytes stops at the inflated cap", () => {
    const bomb = Buffer.from(deflateRawSync(Buffer.alloc(10_000_000, 0x20))).toString("base64");
    expect(bomb.length).toBeLessThan(20_000);
    expect(rejected(() => decode_redirect_message(bomb)).reason).toContain("inflates to more than");
  });

  test("not DEFLATE, not base64, not UTF-8, not well-formed: each refused with its reason", () => {
    expect(rejected(() => decode_redirect_message(b64("plain text"))).reason).toContain("DEFLATE");
    expect(rejected(() => decode_post_message("PHI+*PC9yPg==")).reason).toContain("base64");
    expect(rejected(() => decode_post_message("")).reason).toContain("empty");
    expect(rejected(() => decode_post_message(b64(new Uint8Array([0x3c, 0x72, 0x3e, 0xff, 0x3c, 0x2f, 0x72, 0x3e])))).reason).toContain("UTF-8");
    expect(rejected(() => parse_xml("<a><b></a>")).reason).toContain("well-formed");
    expect(rejected(() => parse_xml("<a/><b/>")).reason).toContain("well-formed");
    expect(rejected(() => parse_xml('<a x="1" x="2"/>')).reason).toContain("well-formed");
    expect(rejected(() => parse_xml("<a>&undefined;</a>")).reason).toContain("well-formed");
  });

  test("processing instructions other than the XML declaration are refused", () => {
    expect(parse_xml(`<?xml version="1.0" encoding="UTF-8"?>${REQUEST}`).documentElement?.localName).toBe("AuthnRequest");
    expect(rejected(() => parse_xml(`<?xml-stylesheet href="x"?><r/>`)).reason).toContain("processing instruction");
    expect(rejected(() => parse_xml(`<r><?php echo 1 ?></r>`)).reason).toContain("processing instruction");
  });

  test("deep nesting is refused without exhausting the stack", () => {
    const deep = `${"<a>".repeat(MAX_DEPTH + 1)}${"</a>".repeat(MAX_DEPTH + 1)}`;
    expect(rejected(() => parse_xml(deep)).reason).toContain("nests deeper");
    const ok = `${"<a>".repeat(MAX_DEPTH)}${"</a>".repeat(MAX_DEPTH)}`;
    expect(parse_xml(ok).documentElement?.localName).toBe("a");
  });

  test("comment injection in a NameID: a value split by a comment is refused, not read around", () => {
    const doc = parse_xml(`<saml:Subject xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"><saml:NameID>admin@example.com<!---->.evil.example</saml:NameID></saml:Subject>`);
    const name_id = required_child(doc.documentElement!, "urn:oasis:names:tc:SAML:2.0:assertion", "NameID");
    // The DOM's own textContent joins the pieces: exactly what text_of must not do silently.
    expect(name_id.textContent).toBe("admin@example.com.evil.example");
    expect(rejected(() => text_of(name_id)).reason).toContain("other than text");
  });

  test("a repeated element where the schema allows one is refused (which one would a reader take?)", () => {
    const doc = parse_xml(`<r xmlns:s="urn:s"><s:Issuer>a</s:Issuer><s:Issuer>b</s:Issuer></r>`);
    expect(rejected(() => required_child(doc.documentElement!, "urn:s", "Issuer")).reason).toContain("2 times");
  });

  test("the decoded message round-trips both bindings", () => {
    expect(decode_post_message(b64(REQUEST)).documentElement?.getAttribute("ID")).toBe("_1");
    expect(decode_redirect_message(deflated(REQUEST)).documentElement?.getAttribute("ID")).toBe("_1");
    // Line breaks inside base64 (some SPs wrap at 76 characters) are allowed.
    expect(decode_post_message(b64(REQUEST).replace(/(.{76})/g, "$1\r\n")).documentElement?.localName).toBe("AuthnRequest");
  });
});

describe("properties", () => {
  test("any string given as a POST or Redirect message yields a Document or an XmlRejected", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String(), fc.string({ unit: "binary" })), (value) => {
        for (const decode of [decode_post_message, decode_redirect_message]) {
          try {
            expect(decode(value).documentElement).not.toBeNull();
          } catch (error) {
            expect(error).toBeInstanceOf(XmlRejected);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  test("any bytes, base64 or deflated, yield a Document or an XmlRejected", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
        for (const [decode, encoded] of [
          [decode_post_message, b64(bytes)],
          [decode_redirect_message, deflated(bytes)],
        ] as const) {
          try {
            decode(encoded);
          } catch (error) {
            expect(error).toBeInstanceOf(XmlRejected);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  test("XML-like text built from the dangerous pieces never parses with a DTD or a PI", () => {
    const piece = fc.constantFrom("<a>", "</a>", "<b x='1'/>", "<!DOCTYPE a>", "<!ENTITY e 'x'>", "&e;", "&amp;", "<?pi?>", "<!--c-->", "<![CDATA[<x>]]>", "text", "]]>", "<");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        try {
          const doc = parse_xml(text);
          expect(/<!DOCTYPE|<!ENTITY|<\?pi/i.test(text)).toBe(false);
          expect(doc.documentElement).not.toBeNull();
        } catch (error) {
          expect(error).toBeInstanceOf(XmlRejected);
        }
      }),
      { numRuns: 3000 },
    );
  });

  test("escaped text reads back as itself (XML characters only), whatever it holds", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (value) => {
        const doc = parse_xml(`<r a="${escape_xml(value)}">${escape_xml(value)}</r>`);
        const clean = value.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "");
        expect(doc.documentElement!.getAttribute("a")).toBe(clean);
        expect(doc.documentElement!.textContent).toBe(clean);
      }),
      { numRuns: 2000 },
    );
  });

  test("characters a parser reads as line ends (U+0085, U+2028, U+2029) or warns about (U+FFFD) read back unchanged", () => {
    for (const value of ["a\u0085b", "a\u2028b", "a\u2029b", "a\uFFFDb", "a\r\nb", "a\tb", "a\u0000b\u0008c"]) {
      const doc = parse_xml(`<r a="${escape_xml(value)}">${escape_xml(value)}</r>`);
      const clean = value.replace(/[\u0000\u0008]/g, "");
      expect([doc.documentElement!.getAttribute("a"), doc.documentElement!.textContent]).toEqual([clean, clean]);
    }
  });

  test("strict base64: a character outside the alphabet is refused, never skipped", () => {
    fc.assert(
      fc.property(fc.base64String({ minLength: 4 }), fc.constantFrom("*", "-", "_", "!", "é", "%"), fc.nat(), (value, bad, at) => {
        const i = at % (value.length + 1);
        expect(() => decode_base64(value.slice(0, i) + bad + value.slice(i), 1024)).toThrow(XmlRejected);
      }),
      { numRuns: 1000 },
    );
  });
});
