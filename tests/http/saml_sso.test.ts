/**
 * GET|POST /saml/sso through a real server with AuthnRequests built by hand, one rule broken at a
 * time: each refusal is a 400 page (nothing goes to an ACS), names what is wrong, and is audited
 * with its reason; the request that breaks none goes on to /saml/resume.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { deflateRawSync } from "node:zlib";
import { create_saml_service_provider } from "../../src/oidc/admin/saml.ts";
import { Browser } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { sp_metadata } from "../helpers/saml.ts";

const SP = "https://hand.example/metadata";
let t: TestProvider;
let counter = 0;

beforeAll(async () => {
  t = await start_provider();
  const metadata = sp_metadata({
    entity_id: SP,
    acs: [
      { location: "https://hand.example/acs", index: 1 },
      { location: "https://hand.example/acs2", index: 7 },
    ],
  });
  await create_saml_service_provider(t.store, { metadata_xml: metadata }, t.clock.now());
});
afterAll(() => t.stop());

type Parts = { id?: string; issuer?: string; instant?: number; destination?: string | null; attributes?: string; inner?: string; prolog?: string };

function authn_request(parts: Parts = {}): string {
  const destination = parts.destination === undefined ? `${t.url}/saml/sso` : parts.destination;
  const instant = new Date((parts.instant ?? t.clock.now()) * 1000).toISOString().replace(/\.\d+Z$/, "Z");
  return (
    `${parts.prolog ?? ""}<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${parts.id ?? `_hand${counter++}`}" Version="2.0" IssueInstant="${instant}"` +
    `${destination === null ? "" : ` Destination="${destination}"`}${parts.attributes ?? ""}><saml:Issuer>${parts.issuer ?? SP}</saml:Issuer>${parts.inner ?? ""}</samlp:AuthnRequest>`
  );
}

function redirect_url(xml: string, relay_state?: string): string {
  const params = new URLSearchParams({ SAMLRequest: Buffer.from(deflateRawSync(Buffer.from(xml))).toString("base64") });
  if (relay_state !== undefined) params.set("RelayState", relay_state);
  return `${t.url}/saml/sso?${params}`;
}

async function last_reason(): Promise<unknown> {
  const [event] = await t.store.list_audit_events({ type: "saml_login" });
  return event?.details?.reason ?? null;
}

describe("/saml/sso", () => {
  test("a request that breaks no rule goes on to /saml/resume (302 for GET, 303 for POST)", async () => {
    const got = await new Browser().get(redirect_url(authn_request()));
    expect(got.status).toBe(302);
    expect(got.headers.get("location")).toMatch(new RegExp(`^${t.url}/saml/resume/[A-Za-z0-9_-]{43}$`));
    const posted = await new Browser().post(`${t.url}/saml/sso`, { SAMLRequest: Buffer.from(authn_request()).toString("base64"), RelayState: "r" });
    expect(posted.status).toBe(303);
    // The ACS by index, from the metadata.
    expect((await new Browser().get(redirect_url(authn_request({ attributes: ' AssertionConsumerServiceIndex="7"' })))).status).toBe(302);
  });

  const refusals: [string, () => string, string, string][] = [
    ["an unknown issuer", () => redirect_url(authn_request({ issuer: "https://nobody.example/" })), "not registered with this sign-in service", "unknown_sp"],
    [
      "a Destination other than our SSO URL",
      () => redirect_url(authn_request({ destination: "https://elsewhere.example/sso" })),
      "not addressed to this sign-in service",
      "destination",
    ],
    ["a request issued 20 minutes ago", () => redirect_url(authn_request({ instant: Math.floor(Date.now() / 1000) - 1200 })), "too old", "expired"],
    ["a request from the future", () => redirect_url(authn_request({ instant: Math.floor(Date.now() / 1000) + 3600 })), "too old", "expired"],
    ["an ACS index the metadata does not have", () => redirect_url(authn_request({ attributes: ' AssertionConsumerServiceIndex="3"' })), "has not registered", "acs"],
    [
      "an ACS URL and an index",
      () => redirect_url(authn_request({ attributes: ' AssertionConsumerServiceIndex="1" AssertionConsumerServiceURL="https://hand.example/acs"' })),
      "twice",
      "acs",
    ],
    [
      "the artifact binding for the answer",
      () => redirect_url(authn_request({ attributes: ' ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact"' })),
      "only HTTP-POST",
      "binding",
    ],
    ["a RelayState over 1024 bytes", () => redirect_url(authn_request(), "r".repeat(1025)), "RelayState is longer than 1024 bytes", "relay_state"],
    ["a DTD (XXE)", () => redirect_url(authn_request({ prolog: '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>' })), "DTD", "malformed"],
    ["a Subject", () => redirect_url(authn_request({ inner: "<saml:Subject><saml:NameID>admin</saml:NameID></saml:Subject>" })), "naming a Subject", "malformed"],
    ["a comment in the Issuer", () => redirect_url(authn_request({ issuer: `${SP}<!---->` })), "other than text", "malformed"],
    ["not SAML 2.0", () => redirect_url(authn_request().replace('Version="2.0"', 'Version="1.1"')), "not SAML 2.0", "malformed"],
    ["no SAMLRequest", () => `${t.url}/saml/sso?RelayState=x`, "carries no SAMLRequest", "malformed"],
    [
      "a deflate bomb",
      () => `${t.url}/saml/sso?${new URLSearchParams({ SAMLRequest: Buffer.from(deflateRawSync(Buffer.alloc(5_000_000, 0x20))).toString("base64") })}`,
      "inflates to more than",
      "malformed",
    ],
  ];
  for (const [name, url, words, reason] of refusals) {
    test(`refused: ${name}`, async () => {
      const response = await new Browser().get(url());
      expect(response.status).toBe(400);
      const html = await response.text();
      expect(html).toContain(words);
      expect(html).not.toContain("SAMLResponse");
      expect(await last_reason()).toBe(reason);
    });
  }

  test("the POST binding's fields come from the form, not the query", async () => {
    const query = new URLSearchParams({ SAMLRequest: Buffer.from(authn_request()).toString("base64") });
    const response = await new Browser().post(`${t.url}/saml/sso?${query}`, {});
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("carries no SAMLRequest");
  });

  test("a pending request is bound to the browser that first opened it", async () => {
    const first = new Browser();
    const sso = await first.get(redirect_url(authn_request()));
    const resume = sso.headers.get("location")!;
    expect((await first.get(resume)).status).toBe(302);
    const other = await new Browser().get(resume);
    expect(other.status).toBe(403);
    expect(await other.text()).toContain("started in another browser");
    // An unknown id is an expired request.
    expect((await first.get(`${t.url}/saml/resume/${"x".repeat(43)}`)).status).toBe(400);
  });
});
