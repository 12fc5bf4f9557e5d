/**
 * SAML single sign-on against a real service provider: pysaml2 (python3-pysaml2, with xmlsec1
 * checking our signatures) consumes our metadata, builds its AuthnRequests over HTTP-Redirect and
 * HTTP-POST, and parses and validates our Responses (signature, audience, conditions,
 * InResponseTo). The browser's side runs through real HTTP against a real server: the sign-in
 * page, the session shared with OpenID, the auto-submitted form. And the refusals: a response
 * tampered with is refused by pysaml2; a replayed request, an unsigned request from a service
 * provider that signs, an unregistered ACS, an unknown issuer are refused by us, each audited.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { create_saml_service_provider, update_saml_service_provider } from "../../src/oidc/admin/saml.ts";
import { persistent_id } from "../../src/oidc/saml/subject.ts";
import { Browser, account_login, authorize, form_action, hidden_field } from "../helpers/browser.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { PySaml2Sp, pysaml2_available } from "./pysaml2.ts";

const SP = "https://sp.example.test/metadata";
const ACS = "https://sp.example.test/acs";
const SIGNING_SP = "https://signed.example.test/metadata";
const SIGNING_ACS = "https://signed.example.test/acs";

let t: TestProvider;
let sp: PySaml2Sp;
let signing: PySaml2Sp;

describe.skipIf(!pysaml2_available)("SAML single sign-on with pysaml2", () => {
  beforeAll(async () => {
    t = await start_provider();
    const idp_metadata = await (await fetch(`${t.url}/saml/metadata`)).text();
    sp = await PySaml2Sp.create({ entity_id: SP, acs: ACS }, idp_metadata);
    signing = await PySaml2Sp.create({ entity_id: SIGNING_SP, acs: SIGNING_ACS, authn_requests_signed: true, want_response_signed: true }, idp_metadata);
    await create_saml_service_provider(t.store, { metadata_xml: await sp.metadata(), name: "Team wiki" }, t.clock.now());
    const signing_metadata = await signing.metadata();
    expect(signing_metadata).toContain('AuthnRequestsSigned="true"');
    await create_saml_service_provider(t.store, { metadata_xml: signing_metadata, name: "Payroll", sign: "both" }, t.clock.now());
    // Importing pysaml2 takes seconds on a busy machine.
  }, 60_000);
  afterAll(async () => {
    sp?.cleanup();
    signing?.cleanup();
    await t?.stop();
  });

  /** Follows a request to the auto-submitted form, signing in when asked; returns the form and the pages seen. */
  async function through(
    browser: Browser,
    first: Response,
    options: { password?: string } = {},
  ): Promise<{ action: string; saml_response: string; relay_state: string | null; steps: string[]; page: Response }> {
    const steps: string[] = [];
    let response = first;
    for (let hops = 0; hops < 6; hops++) {
      if (response.status === 200) {
        const html = await response.text();
        const saml_response = hidden_field(html, "SAMLResponse");
        if (saml_response === null) throw new Error(`a page without a SAMLResponse: ${html.slice(0, 400)}`);
        return { action: form_action(html)!, saml_response, relay_state: hidden_field(html, "RelayState"), steps, page: response };
      }
      const location = response.headers.get("location");
      if (location === null) throw new Error(`expected a redirect, got ${response.status}: ${(await response.text()).slice(0, 400)}`);
      if (new URL(location).pathname === "/account/login") {
        steps.push(`login${new URL(location).search}`);
        const login_page = await browser.get(location);
        const csrf = hidden_field(await login_page.text(), "csrf")!;
        response = await browser.post(`${t.url}/account/login`, { csrf, username: "alice", password: options.password ?? t.password });
        continue;
      }
      steps.push(new URL(location).pathname.split("/").slice(0, 3).join("/"));
      response = await browser.get(location);
    }
    throw new Error("too many hops");
  }

  async function send(browser: Browser, request: { url?: string; action?: string; fields?: Record<string, string> }): Promise<Response> {
    return request.url !== undefined ? browser.get(request.url) : browser.post(request.action!, request.fields!);
  }

  async function saml_events(): Promise<{ outcome: string; reason: unknown; entity_id: unknown; user_id: string | null }[]> {
    const events = await t.store.list_audit_events({ type: "saml_login" });
    return events.map((e) => ({ outcome: e.outcome, reason: e.details?.reason ?? null, entity_id: e.details?.entity_id ?? null, user_id: e.user_id }));
  }

  test("HTTP-Redirect: sign in on our page, pysaml2 validates the signed assertion, its NameID and attributes", async () => {
    const browser = new Browser();
    const request = await sp.request({ binding: "redirect", relay_state: "/wiki/Main_Page?x=1&y=2" });
    expect(new URL(request.url!).origin).toBe(t.url);
    const form = await through(browser, await send(browser, request));
    expect(form.steps).toEqual(["/saml/resume", "login", "/saml/resume"]);
    expect(form.action).toBe(ACS);
    // SAML Bindings §3.5.3: RelayState back as it came.
    expect(form.relay_state).toBe("/wiki/Main_Page?x=1&y=2");
    // The page runs one script, by hash, and may post only to the ACS's origin.
    const csp = form.page.headers.get("content-security-policy")!;
    expect(csp).toMatch(/script-src 'sha256-[^']+'/);
    expect(csp).toContain("form-action 'self' https://sp.example.test");
    expect(form.page.headers.get("cache-control")).toBe("no-store");

    const parsed = await sp.response(form.saml_response, { [request.id]: request.url! });
    expect(parsed.error).toBeUndefined();
    const row = (await t.store.get_saml_service_provider(SP))!;
    expect(parsed).toMatchObject({
      issuer: `${t.issuer}/saml/metadata`,
      in_response_to: request.id,
      name_id: persistent_id(row.nameid_salt, t.user.id),
      name_id_format: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
      sp_name_qualifier: SP,
      audience: [SP],
      recipient: ACS,
      authn_context: "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport",
      assertion_signed: true,
      response_signed: false,
    });
    // pysaml2 maps the OID names to the same friendly names: each value once per name format.
    expect(parsed.attributes.uid).toEqual(["alice", "alice"]);
    expect(parsed.attributes.mail).toEqual(["alice@example.com", "alice@example.com"]);
    expect(parsed.attributes.displayName).toEqual(["Alice Liddell", "Alice Liddell"]);
    expect(parsed.attributes.givenName).toEqual(["Alice", "Alice"]);
    expect(parsed.attributes.sn).toEqual(["Liddell", "Liddell"]);
    // The NameID is opaque: nothing of the user's id, name or address.
    expect(parsed.name_id).not.toContain(t.user.id);
    expect(parsed.name_id).not.toContain("alice");

    // xmlsec1 itself verifies the Assertion with the certificate of our metadata.
    const xml = Buffer.from(form.saml_response, "base64").toString("utf8");
    const metadata = await (await fetch(`${t.url}/saml/metadata`)).text();
    const cert = /<ds:X509Certificate>([^<]+)</.exec(metadata)![1]!;
    writeFileSync(join(sp.dir, "idp-cert.pem"), `-----BEGIN CERTIFICATE-----\n${cert.replace(/(.{64})/g, "$1\n")}\n-----END CERTIFICATE-----\n`);
    writeFileSync(join(sp.dir, "response.xml"), xml);
    const verified = spawnSync(
      "/usr/bin/xmlsec1",
      ["--verify", "--pubkey-cert-pem", join(sp.dir, "idp-cert.pem"), "--id-attr:ID", "urn:oasis:names:tc:SAML:2.0:assertion:Assertion", join(sp.dir, "response.xml")],
      { encoding: "utf8" },
    );
    expect(verified.stderr).toContain("OK");
    expect(verified.status).toBe(0);
  }, 30_000);

  test("HTTP-POST: the same session signs in again without a password; the NameID is the same", async () => {
    const browser = new Browser();
    const first = await sp.request({ binding: "redirect" });
    const one = await through(browser, await send(browser, first));
    const request = await sp.request({ binding: "post", relay_state: "rs-post" });
    expect(request.action).toBe(`${t.url}/saml/sso`);
    const two = await through(browser, await send(browser, request));
    // No sign-in page the second time: the browser's session serves.
    expect(two.steps).toEqual(["/saml/resume"]);
    expect(two.relay_state).toBe("rs-post");
    const [a, b] = [await sp.response(one.saml_response, { [first.id]: "x" }), await sp.response(two.saml_response, { [request.id]: "x" })];
    expect(b.error).toBeUndefined();
    expect(b.in_response_to).toBe(request.id);
    expect(b.name_id).toBe(a.name_id);
    // One SessionIndex per session and service provider.
    expect(b.session_index).toBe(a.session_index);
  }, 30_000);

  test("one sign-in serves OpenID and SAML: a session from /authorize needs no password here", async () => {
    const browser = new Browser();
    const params = new URLSearchParams({ response_type: "code", client_id: t.client.client_id, redirect_uri: REDIRECT_URI, scope: "openid", state: "s" });
    const signed_in = await authorize(browser, `${t.url}/authorize?${params}`, { password: t.password, callback_prefix: REDIRECT_URI });
    expect(signed_in.steps).toContain("login");
    const request = await sp.request({ binding: "redirect" });
    const form = await through(browser, await send(browser, request));
    expect(form.steps).toEqual(["/saml/resume"]);
    expect((await sp.response(form.saml_response, { [request.id]: "x" })).error).toBeUndefined();
  }, 30_000);

  test("a signing service provider: its signed POST request is accepted, the Response and Assertion are both signed", async () => {
    const browser = new Browser();
    const request = await signing.request({ binding: "post", sign: true });
    expect(request.fields!.SAMLRequest).toBeDefined();
    expect(Buffer.from(request.fields!.SAMLRequest!, "base64").toString()).toMatch(/<\w+:Signature /);
    const form = await through(browser, await send(browser, request));
    expect(form.action).toBe(SIGNING_ACS);
    const parsed = await signing.response(form.saml_response, { [request.id]: "x" });
    expect(parsed.error).toBeUndefined();
    expect(parsed).toMatchObject({ assertion_signed: true, response_signed: true, audience: [SIGNING_SP] });
    // Its own salt: another NameID than the other service provider's.
    expect(parsed.name_id).toBe(persistent_id((await t.store.get_saml_service_provider(SIGNING_SP))!.nameid_salt, t.user.id));
    expect(parsed.name_id).not.toBe(persistent_id((await t.store.get_saml_service_provider(SP))!.nameid_salt, t.user.id));
  }, 30_000);

  test("a signing service provider: its signed Redirect request is accepted; unsigned ones are refused", async () => {
    const browser = new Browser();
    const signed = await signing.request({ binding: "redirect", sign: true });
    expect(new URL(signed.url!).searchParams.get("SigAlg")).toBe("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
    const form = await through(browser, await send(browser, signed));
    expect((await signing.response(form.saml_response, { [signed.id]: "x" })).error).toBeUndefined();

    for (const binding of ["redirect", "post"] as const) {
      const unsigned = await signing.request({ binding, sign: false });
      const refused = await send(browser, unsigned);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain("must sign its sign-in requests");
    }
    // A signed Redirect request whose RelayState was changed on the way: the signature covers it.
    const tampered = await signing.request({ binding: "redirect", sign: true, relay_state: "mine" });
    const url = new URL(tampered.url!);
    url.searchParams.set("RelayState", "theirs");
    const forged = await browser.get(url.href);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("does not verify");
    const reasons = (await saml_events()).filter((e) => e.entity_id === SIGNING_SP && e.outcome === "failure").map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(["unsigned", "bad_signature"]));
  }, 30_000);

  test("a replayed AuthnRequest is refused: its ID is single use", async () => {
    const browser = new Browser();
    const request = await sp.request({ binding: "redirect" });
    expect((await browser.get(request.url!)).status).toBe(302);
    const again = await new Browser().get(request.url!);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("already used");
    const post = await sp.request({ binding: "post" });
    expect((await browser.post(post.action!, post.fields!)).status).toBe(303);
    expect((await browser.post(post.action!, post.fields!)).status).toBe(400);
    expect((await saml_events()).filter((e) => e.reason === "replayed").length).toBe(2);
  }, 30_000);

  test("a tampered response is refused by pysaml2; so is one for another request", async () => {
    const browser = new Browser();
    const request = await sp.request({ binding: "redirect" });
    const form = await through(browser, await send(browser, request));
    const xml = Buffer.from(form.saml_response, "base64").toString("utf8");
    const tampered = Buffer.from(xml.replace(">alice@example.com<", ">mallory@example.com<")).toString("base64");
    expect(tampered).not.toBe(form.saml_response);
    const refused = await sp.response(tampered, { [request.id]: "x" });
    expect(refused.error).toMatch(/Signature|signature/);
    // Unsolicited (no outstanding request) is refused too: allow_unsolicited is off.
    expect((await sp.response(form.saml_response, {})).error).toBeDefined();
    expect((await sp.response(form.saml_response, { [request.id]: "x" })).error).toBeUndefined();
  }, 30_000);

  test("ForceAuthn signs in again despite the session; IsPassive without a session answers NoPassive", async () => {
    const browser = new Browser();
    await account_login(t, browser, "alice", t.password);
    // Whole seconds: the new sign-in must be later than the request.
    t.clock.advance(2);
    const forced = await sp.request({ binding: "redirect", force_authn: true });
    expect(Buffer.from(new URL(forced.url!).searchParams.get("SAMLRequest")!, "base64").byteLength).toBeGreaterThan(0);
    const form = await through(browser, await send(browser, forced));
    expect(form.steps).toEqual(["/saml/resume", "login?prompt=login", "/saml/resume"]);
    expect((await sp.response(form.saml_response, { [forced.id]: "x" })).error).toBeUndefined();

    const passive = await sp.request({ binding: "redirect", is_passive: true });
    const answer = await through(new Browser(), await send(new Browser(), passive));
    expect(answer.steps).toEqual(["/saml/resume"]);
    const parsed = await sp.response(answer.saml_response, { [passive.id]: "x" });
    expect(parsed.error).toContain("NoPassive");
    expect((await saml_events()).some((e) => e.reason === "no_passive")).toBe(true);
  }, 30_000);

  test("an allowed-group policy refuses a user outside it with a clear page, audited", async () => {
    const group = await t.store.create_group({ name: "wiki-editors" });
    await update_saml_service_provider(t.store, SP, { allowed_groups: ["wiki-editors"] }, t.clock.now());
    try {
      const browser = new Browser();
      await account_login(t, browser, "alice", t.password);
      const request = await sp.request({ binding: "redirect" });
      const resume = await browser.get(request.url!);
      const refused = await browser.get(resume.headers.get("location")!);
      expect(refused.status).toBe(403);
      const html = await refused.text();
      expect(html).toContain("Access denied");
      expect(html).toContain("not in a group allowed to use Team wiki");
      expect(html).not.toContain("SAMLResponse");
      const last = (await saml_events())[0]!;
      expect(last).toEqual({ outcome: "failure", reason: "group", entity_id: SP, user_id: t.user.id });
      // A member gets in; the group is also released as memberOf.
      await t.store.add_group_member(group.id, t.user.id);
      const again = await sp.request({ binding: "redirect" });
      const form = await through(browser, await send(browser, again));
      const attributes = (await sp.response(form.saml_response, { [again.id]: "x" })).attributes;
      // pysaml2 has no friendly name for memberOf's OID: it keeps the URI name.
      expect(attributes.memberOf).toEqual(["wiki-editors"]);
      expect(attributes["urn:oid:1.2.840.113556.1.2.102"]).toEqual(["wiki-editors"]);
    } finally {
      await update_saml_service_provider(t.store, SP, { allowed_groups: [] }, t.clock.now());
    }
  }, 30_000);

  test("the e-mail NameID format; NameIDPolicy asking for another format gets InvalidNameIDPolicy", async () => {
    await update_saml_service_provider(t.store, SP, { nameid_format: "email" }, t.clock.now());
    try {
      const browser = new Browser();
      const request = await sp.request({ binding: "redirect", nameid_format: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" });
      const form = await through(browser, await send(browser, request));
      const parsed = await sp.response(form.saml_response, { [request.id]: "x" });
      expect(parsed).toMatchObject({ name_id: "alice@example.com", name_id_format: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress" });
      const transient = await sp.request({ binding: "redirect", nameid_format: "urn:oasis:names:tc:SAML:2.0:nameid-format:transient" });
      const refused = await through(browser, await send(browser, transient));
      expect((await sp.response(refused.saml_response, { [transient.id]: "x" })).error).toContain("InvalidNameIDPolicy");
    } finally {
      await update_saml_service_provider(t.store, SP, { nameid_format: "persistent" }, t.clock.now());
    }
  }, 30_000);

  test("an ACS URL the service provider did not register, and an unknown issuer, are refused before anything is sent", async () => {
    const browser = new Browser();
    const elsewhere = await sp.request({ binding: "post" }, { acs: "https://attacker.example/acs" });
    const refused = await send(browser, elsewhere);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("an address it has not registered");
    const stranger = await sp.request({ binding: "redirect" }, { entity_id: "https://stranger.example/metadata" });
    const unknown = await send(browser, stranger);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain("not registered with this sign-in service");
    const reasons = (await saml_events()).map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(["acs", "unknown_sp"]));
  }, 30_000);

  test("IdP-initiated: refused while off (the default); allowed, an unsolicited Response pysaml2 accepts only when it allows them", async () => {
    const browser = new Browser();
    await account_login(t, browser, "alice", t.password);
    const start = `${t.url}/saml/start?sp=${encodeURIComponent(SP)}&RelayState=${encodeURIComponent("/home")}`;
    const off = await browser.get(start);
    expect(off.status).toBe(403);
    expect(await off.text()).toContain("accepts only sign-ins it starts itself");
    expect((await browser.get(`${t.url}/saml/start?sp=${encodeURIComponent("https://nobody.example/")}`)).status).toBe(404);
    await update_saml_service_provider(t.store, SP, { idp_initiated: true }, t.clock.now());
    try {
      const form = await through(browser, await browser.get(start));
      expect(form.steps).toEqual(["/saml/resume"]);
      expect(form.action).toBe(ACS);
      expect(form.relay_state).toBe("/home");
      expect(Buffer.from(form.saml_response, "base64").toString()).not.toContain("InResponseTo");
      expect((await sp.response(form.saml_response, null)).error).toBeDefined();
      const parsed = await sp.response(form.saml_response, null, { allow_unsolicited: true });
      expect(parsed.error).toBeUndefined();
      expect(parsed.in_response_to).toBeNull();
      expect(parsed.attributes.uid).toEqual(["alice", "alice"]);
    } finally {
      await update_saml_service_provider(t.store, SP, { idp_initiated: false }, t.clock.now());
    }
    const reasons = (await saml_events()).map((e) => e.reason);
    expect(reasons).toContain("idp_initiated_off");
  }, 30_000);

  test("every successful sign-in is audited with the service provider and the user", async () => {
    const successes = (await saml_events()).filter((e) => e.outcome === "success");
    expect(successes.length).toBeGreaterThanOrEqual(8);
    for (const event of successes) expect(event.user_id).toBe(t.user.id);
    expect(new Set(successes.map((e) => e.entity_id))).toEqual(new Set([SP, SIGNING_SP]));
  }, 30_000);
});
