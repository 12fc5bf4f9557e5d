/**
 * Encrypted assertions against a real service provider: pysaml2, with an encryption key of its
 * own in its metadata (KeyDescriptor use="encryption", another key than its signing key),
 * registered with `encrypt`. The browser signs in over real HTTP; the Response carries an
 * EncryptedAssertion (AES-256-GCM, RSA-OAEP) with nothing of the user in the clear; pysaml2
 * decrypts it with xmlsec1, checks the Assertion's signature (signed before it was encrypted,
 * SAML Core §6.1) and reads the NameID and attributes. Signed Response too when the SP's sign
 * mode says so. A service provider whose new metadata lost its key gets nothing in the clear.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { create_saml_service_provider } from "../../src/oidc/admin/saml.ts";
import { Browser, hidden_field } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { PySaml2Sp, pysaml2_available } from "./pysaml2.ts";

const SP = "https://secret.example.test/metadata";
const ACS = "https://secret.example.test/acs";

let t: TestProvider;
let sp: PySaml2Sp;

describe.skipIf(!pysaml2_available)("SAML encrypted assertions with pysaml2", () => {
  beforeAll(async () => {
    t = await start_provider();
    const idp_metadata = await (await fetch(`${t.url}/saml/metadata`)).text();
    sp = await PySaml2Sp.create({ entity_id: SP, acs: ACS, encryption: true, want_response_signed: true }, idp_metadata);
    const metadata = await sp.metadata();
    expect(metadata).toMatch(/KeyDescriptor use="encryption"/);
    await create_saml_service_provider(t.store, { metadata_xml: metadata, name: "Secrets", encrypt: true, sign: "both" }, t.clock.now());
  }, 60_000);
  afterAll(async () => {
    sp?.cleanup();
    await t?.stop();
  });

  /** The SAMLResponse the browser is given for a fresh request (signing in with the password when asked). */
  async function saml_response(browser: Browser): Promise<{ id: string; xml: string; base64: string | null; page: Response }> {
    const request = await sp.request({ binding: "redirect" });
    let response = await browser.get(request.url!);
    for (let hops = 0; hops < 6 && response.status !== 200 && response.headers.get("location") !== null; hops++) {
      const location = response.headers.get("location")!;
      if (new URL(location).pathname === "/account/login") {
        const csrf = hidden_field(await (await browser.get(location)).text(), "csrf")!;
        response = await browser.post(`${t.url}/account/login`, { csrf, username: "alice", password: t.password });
      } else {
        response = await browser.get(location);
      }
    }
    const html = await response.text();
    const base64 = hidden_field(html, "SAMLResponse");
    return { id: request.id, base64, xml: base64 === null ? html : Buffer.from(base64, "base64").toString("utf8"), page: response };
  }

  test("SP-initiated: the Assertion arrives encrypted, pysaml2 decrypts it and reads the signed Assertion's NameID and attributes", async () => {
    const browser = new Browser();
    const got = await saml_response(browser);
    expect(got.base64).not.toBeNull();
    expect(got.xml).toContain("<saml:EncryptedAssertion");
    expect(got.xml).toContain('Algorithm="http://www.w3.org/2009/xmlenc11#aes256-gcm"');
    expect(got.xml).toContain('Algorithm="http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"');
    expect(got.xml).not.toContain("<saml:Assertion");
    expect(got.xml).not.toContain("alice");
    const parsed = await sp.response(got.base64!, { [got.id]: "x" });
    expect(parsed.error).toBeUndefined();
    expect(parsed).toMatchObject({ in_response_to: got.id, audience: [SP], recipient: ACS, assertion_signed: true, response_signed: true });
    expect(parsed.attributes.uid).toContain("alice");
    expect(parsed.attributes.mail).toContain("alice@example.com");
  }, 60_000);

  test("metadata that lost its encryption key: nothing is sent in the clear, the user is told, audited", async () => {
    const row = (await t.store.get_saml_service_provider(SP))!;
    // As if the metadata had been replaced behind the rules' back (they refuse it: tests/cli/saml.test.ts).
    await t.store.update_saml_service_provider(SP, { metadata_xml: row.metadata_xml.replace(/<(\w+:)?KeyDescriptor use="encryption">[\s\S]*?<\/(\w+:)?KeyDescriptor>/, "") });
    try {
      const browser = new Browser();
      const got = await saml_response(browser);
      expect(got.base64).toBeNull();
      expect(got.page.status).toBeGreaterThanOrEqual(400);
      expect(got.xml).toContain("encrypted assertions");
      const events = await t.store.list_audit_events({ type: "saml_login" });
      expect(events.some((e) => e.outcome === "failure" && e.details?.reason === "no_encryption_key")).toBe(true);
    } finally {
      await t.store.update_saml_service_provider(SP, { metadata_xml: row.metadata_xml });
    }
  }, 60_000);
});
