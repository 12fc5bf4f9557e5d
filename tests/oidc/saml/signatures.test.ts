/**
 * Checking a service provider's signatures (src/oidc/saml/signatures.ts), with requests signed
 * here as a service provider would sign them (xml-crypto): a valid signature yields the signed
 * element; the XML signature wrapping shapes (the signed element moved aside, a second element
 * with its ID, a second signature, a reference to something else), a changed byte, another key,
 * RSA-SHA1 and a comment in the Issuer are refused. The HTTP-Redirect signature covers the raw
 * query, RelayState included.
 */
import { beforeAll, describe, expect, test } from "../../helpers/test_api.ts";
import { sign } from "node:crypto";
import { SignedXml } from "xml-crypto";
import { read_authn_request } from "../../../src/oidc/saml/authn_request.ts";
import { certificate_pem } from "../../../src/oidc/saml/certificate.ts";
import { SamlRefusal } from "../../../src/oidc/saml/refusal.ts";
import { query_pairs, verified_post_message, verified_redirect_query } from "../../../src/oidc/saml/signatures.ts";
import { parse_xml } from "../../../src/oidc/saml/xml.ts";
import { sp_key, type SpKey } from "../../helpers/saml.ts";

let key: SpKey;
let other: SpKey;
beforeAll(async () => {
  key = await sp_key();
  other = await sp_key("other.example");
});

const request = (id: string, issuer = "https://sp.example/metadata", acs = "https://sp.example/acs") =>
  `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="2030-01-01T00:00:00Z" Destination="https://idp.example/saml/sso" AssertionConsumerServiceURL="${acs}"><saml:Issuer>${issuer}</saml:Issuer><samlp:NameIDPolicy Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"/></samlp:AuthnRequest>`;

/** Signs the root as an SP does (SAML Core §5.4): enveloped, exclusive c14n, after the Issuer. */
function signed(xml: string, signer: SpKey = key, algorithm = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"): string {
  const sig = new SignedXml({
    privateKey: signer.pem,
    publicCert: certificate_pem(signer.certificate),
    canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
    signatureAlgorithm: algorithm,
  });
  sig.addReference({
    xpath: "/*",
    digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
    transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
  });
  sig.computeSignature(xml, { prefix: "ds", location: { reference: "/*/*[local-name(.)='Issuer']", action: "after" } });
  return sig.getSignedXml();
}

function check(xml: string, certificates = [key.certificate]) {
  return verified_post_message(xml, parse_xml(xml), certificates);
}

function refusal(run: () => unknown): SamlRefusal {
  try {
    run();
  } catch (error) {
    if (error instanceof SamlRefusal) return error;
    throw error;
  }
  throw new Error("expected a SamlRefusal");
}

/** The Signature element of a signed document, as text. */
const signature_of = (xml: string) => /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(xml)![0];

describe("the HTTP-POST binding's enveloped signature", () => {
  test("a valid signature yields the signed request; an unsigned one yields null", () => {
    const root = check(signed(request("_ok")))!;
    expect(read_authn_request(root)).toMatchObject({ id: "_ok", issuer: "https://sp.example/metadata", acs_url: "https://sp.example/acs" });
    // What comes back is parsed from the signed octets: the Signature is gone.
    expect(root.getElementsByTagNameNS("http://www.w3.org/2000/09/xmldsig#", "Signature").length).toBe(0);
    expect(check(request("_plain"))).toBeNull();
  });

  test("a changed attribute after signing (the ACS URL) breaks it", () => {
    const xml = signed(request("_t")).replace("https://sp.example/acs", "https://attacker.example/acs");
    expect(refusal(() => check(xml)).reason).toBe("bad_signature");
  });

  test("another key, or no registered key, does not verify", () => {
    expect(refusal(() => check(signed(request("_k"), other))).reason).toBe("bad_signature");
    expect(refusal(() => check(signed(request("_k2")), [])).reason).toBe("bad_signature");
    // With both keys registered (a rotation at the SP), either verifies.
    expect(check(signed(request("_k3"), other), [key.certificate, other.certificate])).not.toBeNull();
  });

  test("RSA-SHA1 is refused", () => {
    const xml = signed(request("_sha1"), key, "http://www.w3.org/2000/09/xmldsig#rsa-sha1");
    expect(refusal(() => check(xml)).reason).toBe("bad_signature");
  });

  test("wrapping: the signed request moved inside a forged one (signature not on the root)", () => {
    const original = signed(request("_orig"));
    const forged = request("_evil", "https://sp.example/metadata", "https://attacker.example/acs").replace(
      "</samlp:AuthnRequest>",
      `<samlp:Extensions>${original}</samlp:Extensions></samlp:AuthnRequest>`,
    );
    expect(refusal(() => check(forged)).reason).toBe("wrapped");
  });

  test("wrapping: the signature moved to a forged root that reuses the signed ID, the original hidden inside", () => {
    const original = signed(request("_same"));
    const signature = signature_of(original);
    const hidden = original.replace(signature, "");
    const forged = request("_same", "https://sp.example/metadata", "https://attacker.example/acs").replace(
      "</saml:Issuer>",
      `</saml:Issuer>${signature}<samlp:Extensions>${hidden}</samlp:Extensions>`,
    );
    expect(refusal(() => check(forged)).reason).toBe("wrapped");
  });

  test("wrapping: a signature on the root that references another element", () => {
    const original = signed(request("_other"));
    const forged = request("_root", "https://sp.example/metadata", "https://attacker.example/acs").replace(
      "</saml:Issuer>",
      `</saml:Issuer>${signature_of(original)}<samlp:Extensions>${original.replace(signature_of(original), "")}</samlp:Extensions>`,
    );
    expect(refusal(() => check(forged)).reason).toBe("wrapped");
  });

  test("wrapping: a second signature anywhere", () => {
    const once = signed(request("_twice"));
    const twice = once.replace("</samlp:AuthnRequest>", `<samlp:Extensions>${signature_of(once)}</samlp:Extensions></samlp:AuthnRequest>`);
    expect(refusal(() => check(twice)).reason).toBe("wrapped");
  });

  test("comment injection: a comment splitting the Issuer is refused, signed or not", () => {
    const xml = request("_c", "https://sp.example/metadata<!---->.evil.example");
    expect(refusal(() => read_authn_request(parse_xml(xml).documentElement!)).reason).toBe("malformed");
    // Signed, the comment is outside what the signature covers (SAML Core §5.4.4, c14n drops it):
    // the request as sent still holds it, and is refused the same way before any key is looked up.
    const sent = signed(xml);
    expect(refusal(() => read_authn_request(parse_xml(sent).documentElement!)).reason).toBe("malformed");
  });
});

describe("the HTTP-Redirect binding's query signature", () => {
  /** SAML Bindings §3.4.4.1: signs the URL-encoded SAMLRequest, RelayState and SigAlg as they appear. */
  function signed_query(relay: string | null, signer: SpKey = key, sig_alg = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256", digest = "sha256"): string {
    const enc = encodeURIComponent;
    const octets = `SAMLRequest=${enc("ZmFrZQ==")}${relay === null ? "" : `&RelayState=${enc(relay)}`}&SigAlg=${enc(sig_alg)}`;
    return `${octets}&Signature=${enc(sign(digest, Buffer.from(octets), signer.private_key).toString("base64"))}`;
  }

  test("a valid signature verifies, with and without RelayState; an unsigned query is not signed", () => {
    expect(verified_redirect_query(query_pairs(signed_query("/back?a=1&b=2")), [key.certificate])).toBe(true);
    expect(verified_redirect_query(query_pairs(signed_query(null)), [key.certificate])).toBe(true);
    expect(verified_redirect_query(query_pairs("SAMLRequest=ZmFrZQ%3D%3D&RelayState=x"), [key.certificate])).toBe(false);
  });

  test("a changed RelayState, another key, SHA-1, or half a signature is refused", () => {
    const changed = signed_query("mine").replace("RelayState=mine", "RelayState=theirs");
    expect(refusal(() => verified_redirect_query(query_pairs(changed), [key.certificate])).reason).toBe("bad_signature");
    expect(refusal(() => verified_redirect_query(query_pairs(signed_query("x", other)), [key.certificate])).reason).toBe("bad_signature");
    const sha1 = signed_query("x", key, "http://www.w3.org/2000/09/xmldsig#rsa-sha1", "sha1");
    expect(refusal(() => verified_redirect_query(query_pairs(sha1), [key.certificate])).reason).toBe("bad_signature");
    const half = signed_query("x").replace(/&SigAlg=[^&]*/, "");
    expect(refusal(() => verified_redirect_query(query_pairs(half), [key.certificate])).reason).toBe("bad_signature");
  });

  test("a repeated parameter is refused: which one would the signature cover?", () => {
    expect(refusal(() => query_pairs(`${signed_query("x")}&RelayState=y`)).reason).toBe("malformed");
    expect(refusal(() => query_pairs("SAMLRequest=a&SAMLRequest=b")).reason).toBe("malformed");
    expect(refusal(() => query_pairs("SAMLRequest=%E0%A4%A")).reason).toBe("malformed");
  });
});
