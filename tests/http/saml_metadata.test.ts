/**
 * GET /saml/metadata through a real server: our entityID is the metadata's URL, the SSO service
 * is offered for both bindings, and the signing certificates hold the provider's RS256 keys —
 * the signing one first, the next one already published, so a rotation was announced ahead.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { X509Certificate } from "node:crypto";
import { parse_xml, children } from "../../src/oidc/saml/xml.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const MD = "urn:oasis:names:tc:SAML:2.0:metadata";
const DS = "http://www.w3.org/2000/09/xmldsig#";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

async function metadata(): Promise<{ response: Response; xml: string }> {
  const response = await fetch(`${t.url}/saml/metadata`);
  return { response, xml: await response.text() };
}

function certificates(xml: string): X509Certificate[] {
  const doc = parse_xml(xml, 512 * 1024);
  const descriptor = children(doc.documentElement!, MD, "IDPSSODescriptor")[0]!;
  return children(descriptor, MD, "KeyDescriptor").map((kd) => {
    expect(kd.getAttribute("use")).toBe("signing");
    const value = kd.getElementsByTagNameNS(DS, "X509Certificate")[0]!.textContent!;
    return new X509Certificate(Buffer.from(value, "base64"));
  });
}

async function rs256_keys(): Promise<{ kid: string; n: string }[]> {
  const jwks = (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string; n?: string }[] };
  return jwks.keys.filter((k) => k.alg === "RS256").map((k) => ({ kid: k.kid, n: k.n! }));
}

describe("GET /saml/metadata", () => {
  test("entityID is the metadata URL; SSO over HTTP-Redirect and HTTP-POST; the four NameID formats", async () => {
    const { response, xml } = await metadata();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/samlmetadata+xml; charset=utf-8");
    const doc = parse_xml(xml, 512 * 1024);
    const root = doc.documentElement!;
    expect(root.localName).toBe("EntityDescriptor");
    expect(root.getAttribute("entityID")).toBe(`${t.issuer}/saml/metadata`);
    const descriptor = children(root, MD, "IDPSSODescriptor")[0]!;
    expect(descriptor.getAttribute("protocolSupportEnumeration")).toBe("urn:oasis:names:tc:SAML:2.0:protocol");
    const sso = children(descriptor, MD, "SingleSignOnService").map((e) => [e.getAttribute("Binding"), e.getAttribute("Location")]);
    expect(sso).toEqual([
      ["urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect", `${t.issuer}/saml/sso`],
      ["urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST", `${t.issuer}/saml/sso`],
    ]);
    expect(children(descriptor, MD, "NameIDFormat").map((e) => e.textContent)).toEqual([
      "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
      "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
      "urn:oasis:names:tc:SAML:2.0:nameid-format:transient",
      "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
    ]);
  });

  test("the certificates hold the RS256 keys of the JWKS: the signing key first, the next key after it", async () => {
    const certs = certificates((await metadata()).xml);
    const keys = await rs256_keys();
    expect(certs.length).toBe(2);
    const moduli = certs.map((cert) => (cert.publicKey.export({ format: "jwk" }) as { n: string }).n);
    // The JWKS lists the active key first, then the next one (keys/published.ts).
    expect(moduli).toEqual(keys.map((k) => k.n));
    for (const cert of certs) expect(cert.verify(cert.publicKey)).toBe(true);
  });

  test("a rotation was announced: after it, the former next key signs and comes first", async () => {
    const before = certificates((await metadata()).xml).map((c) => c.serialNumber);
    await t.provider.keys.rotate("RS256");
    const after = certificates((await metadata()).xml).map((c) => c.serialNumber);
    expect(after[0]).toBe(before[1]!);
    expect(after).not.toContain(before[0]);
  });

  test("ETag and If-None-Match: 304 while nothing changed", async () => {
    const { response } = await metadata();
    const etag = response.headers.get("etag")!;
    expect(response.headers.get("cache-control")).toBe("public, max-age=300");
    const again = await fetch(`${t.url}/saml/metadata`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });
});
