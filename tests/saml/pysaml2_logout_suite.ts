/**
 * SAML Single Logout against a real service provider: pysaml2 builds its signed LogoutRequests
 * (HTTP-Redirect and HTTP-POST) and checks our signed LogoutResponses and LogoutRequests with
 * the certificate of our metadata (xmlsec1 for XML signatures, the query signature over the
 * Redirect binding). One provider and two pysaml2 service providers serve the whole file:
 *
 * - service provider initiated: the session it names ends (a new sign-in asks for the
 *   password), the other participant is sent a LogoutRequest in an iframe, and the requester
 *   gets a LogoutResponse at its registered single logout service;
 * - identity provider initiated: signing out at /logout sends each participant its
 *   LogoutRequest, with the NameID and SessionIndex it was given;
 * - refusals: an unsigned request from a service provider with a key, a tampered signature, a
 *   replayed request, each audited.
 * Run on SQLite (pysaml2_logout.test.ts) and PostgreSQL (pysaml2_logout_postgres.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { create_saml_service_provider } from "../../src/oidc/admin/saml.ts";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { PySaml2Sp, pysaml2_available, type ParsedResponse } from "./pysaml2.ts";

const A = { entity_id: "https://a.example.test/metadata", acs: "https://a.example.test/acs", slo: "https://a.example.test/slo" };
const C = { entity_id: "https://c.example.test/metadata", acs: "https://c.example.test/acs", slo: "https://c.example.test/slo", slo_post_only: true };
const B = { entity_id: "https://b.example.test/metadata", acs: "https://b.example.test/acs", slo: "https://b.example.test/slo" };

let t: TestProvider;
let a: PySaml2Sp;
let b: PySaml2Sp;
let c: PySaml2Sp;

/** The query of a URL as a plain object (pysaml2 checks the Redirect signature over it). */
function query_of(url: string): Record<string, string> {
  return Object.fromEntries(new URL(url).searchParams);
}

/** The iframes of a signed-out page: their src (entities decoded). */
function iframe_sources(html: string): string[] {
  return [...html.matchAll(/<iframe[^>]* src="([^"]+)"/g)].map((m) =>
    m[1]!
      .replace(/&amp;/g, "&")
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"'),
  );
}

/** A fresh database for the provider: its URL, and how to remove it afterwards. */
export type SuiteDatabase = { url: string; drop(): Promise<void> };

export function logout_suite(label: string, database: () => Promise<SuiteDatabase>): void {
  describe.skipIf(!pysaml2_available)(`SAML single logout with pysaml2 (${label})`, () => {
    let db: SuiteDatabase | null = null;
    beforeAll(async () => {
      db = await database();
      t = await start_provider({ database_url: db.url });
      const idp_metadata = await (await fetch(`${t.url}/saml/metadata`)).text();
      expect(idp_metadata).toContain(`<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${t.issuer}/saml/slo"/>`);
      expect(idp_metadata).toContain(`<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${t.issuer}/saml/slo"/>`);
      [a, b, c] = await Promise.all([PySaml2Sp.create(A, idp_metadata), PySaml2Sp.create(B, idp_metadata), PySaml2Sp.create(C, idp_metadata)]);
      await create_saml_service_provider(t.store, { metadata_xml: await a.metadata(), name: "Wiki" }, t.clock.now());
      await create_saml_service_provider(t.store, { metadata_xml: await b.metadata(), name: "Payroll" }, t.clock.now());
      await create_saml_service_provider(t.store, { metadata_xml: await c.metadata(), name: "Tickets" }, t.clock.now());
    }, 60_000);
    afterAll(async () => {
      a?.cleanup();
      b?.cleanup();
      await t?.stop();
      await db?.drop();
    });

    /** Signs the browser in to `sp` (with the password when it has no session yet); pysaml2's reading of the Response. */
    async function sign_in(browser: Browser, sp: PySaml2Sp): Promise<{ parsed: ParsedResponse; asked_password: boolean }> {
      const request = await sp.request({ binding: "redirect" });
      let response = await browser.get(request.url!);
      let asked_password = false;
      for (let hops = 0; hops < 6 && response.status !== 200; hops++) {
        const location = response.headers.get("location")!;
        if (new URL(location).pathname === "/account/login") {
          asked_password = true;
          const csrf = hidden_field(await (await browser.get(location)).text(), "csrf")!;
          response = await browser.post(`${t.url}/account/login`, { csrf, username: "alice", password: t.password });
        } else {
          response = await browser.get(location);
        }
      }
      const saml_response = hidden_field(await response.text(), "SAMLResponse")!;
      const parsed = await sp.response(saml_response, { [request.id]: "x" });
      expect(parsed.error).toBeUndefined();
      return { parsed, asked_password };
    }

    function name_id_of(parsed: ParsedResponse) {
      return { value: parsed.name_id, format: parsed.name_id_format, name_qualifier: `${t.issuer}/saml/metadata`, sp_name_qualifier: parsed.sp_name_qualifier };
    }

    async function logout_events() {
      // Oldest first.
      return (await t.store.list_audit_events({ type: "saml_logout" }))
        .reverse()
        .map((e) => ({ outcome: e.outcome, reason: e.details?.reason ?? null, sessions: e.details?.sessions ?? null }));
    }

    test("HTTP-Redirect, service provider initiated: the session ends, the other participant is told, the requester gets a signed LogoutResponse", async () => {
      const browser = new Browser();
      const at_a = await sign_in(browser, a);
      const at_b = await sign_in(browser, b);
      expect(at_b.asked_password).toBe(false);

      const request = await a.logout_request({ binding: "redirect", name_id: name_id_of(at_a.parsed), session_index: at_a.parsed.session_index, relay_state: "/after" });
      expect(new URL(request.url!).origin).toBe(t.url);
      const page = await browser.get(request.url!);
      expect(page.status).toBe(200);
      const html = await page.text();
      // The other participant's LogoutRequest, in an iframe the page's CSP allows.
      const [frame] = iframe_sources(html);
      expect(frame!.startsWith(`${B.slo}?SAMLRequest=`)).toBe(true);
      expect(page.headers.get("content-security-policy")).toContain("frame-src 'self' https://b.example.test");
      const told = await b.idp_logout_request("redirect", query_of(frame!).SAMLRequest!, query_of(frame!));
      expect(told.error).toBeUndefined();
      expect(told).toMatchObject({
        issuer: `${t.issuer}/saml/metadata`,
        destination: B.slo,
        name_id: at_b.parsed.name_id,
        session_index: [at_b.parsed.session_index],
        signature_ok: true,
      });

      // Then on to the requester's single logout service with the LogoutResponse.
      const href = /id="saml-continue"[^>]* href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, "&");
      expect(href.startsWith(`${A.slo}?SAMLResponse=`)).toBe(true);
      expect(query_of(href).RelayState).toBe("/after");
      const answer = await a.logout_response("redirect", query_of(href).SAMLResponse!, query_of(href));
      expect(answer.error).toBeUndefined();
      expect(answer).toMatchObject({ in_response_to: request.id, status: "urn:oasis:names:tc:SAML:2.0:status:Success", destination: A.slo, signature_ok: true });

      // Signed out here: the next sign-in asks for the password.
      expect((await sign_in(browser, a)).asked_password).toBe(true);
      const logout = (await t.store.list_audit_events({ type: "logout" }))[0]!;
      expect(logout.details).toMatchObject({ initiator: "saml", saml: [B.entity_id] });
      expect((await logout_events()).at(-1)).toEqual({ outcome: "success", reason: null, sessions: 1 });
    }, 60_000);

    test("HTTP-POST, service provider initiated: answered by an auto-submitted form with a signed LogoutResponse; a replay is refused", async () => {
      const browser = new Browser();
      const at_a = await sign_in(browser, a);
      const request = await a.logout_request({ binding: "post", name_id: name_id_of(at_a.parsed), session_index: at_a.parsed.session_index });
      expect(request.action).toBe(`${t.issuer}/saml/slo`);
      const page = await browser.post(request.action!, request.fields!);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(form_action(html)).toBe(A.slo);
      const answer = await a.logout_response("post", hidden_field(html, "SAMLResponse")!);
      expect(answer.error).toBeUndefined();
      expect(answer).toMatchObject({ in_response_to: request.id, status: "urn:oasis:names:tc:SAML:2.0:status:Success", xml_signed: true });
      expect((await sign_in(browser, a)).asked_password).toBe(true);

      const replayed = await browser.post(request.action!, request.fields!);
      expect(replayed.status).toBe(400);
      expect(await replayed.text()).toContain("already used");
      expect((await logout_events()).at(-1)).toMatchObject({ outcome: "failure", reason: "replayed" });
    }, 60_000);

    test("an unsigned or tampered LogoutRequest is refused and the session stays", async () => {
      const browser = new Browser();
      const at_a = await sign_in(browser, a);
      const name_id = name_id_of(at_a.parsed);
      for (const binding of ["redirect", "post"] as const) {
        const unsigned = await a.logout_request({ binding, name_id, session_index: at_a.parsed.session_index, sign: false });
        const refused = unsigned.url !== undefined ? await browser.get(unsigned.url) : await browser.post(unsigned.action!, unsigned.fields!);
        expect(refused.status).toBe(400);
        expect(await refused.text()).toContain("must sign its sign-out requests");
      }
      // A signed request whose RelayState was changed on the way: the signature covers it.
      const signed = await a.logout_request({ binding: "redirect", name_id, session_index: at_a.parsed.session_index, relay_state: "mine" });
      const tampered = await browser.get(signed.url!.replace("RelayState=mine", "RelayState=theirs"));
      expect(tampered.status).toBe(400);
      // A signed POST request whose NameID was changed: the XML signature no longer verifies.
      const post = await a.logout_request({ binding: "post", name_id, session_index: at_a.parsed.session_index });
      const xml = Buffer.from(post.fields!.SAMLRequest!, "base64").toString("utf8").replace(at_a.parsed.name_id, "someone-else");
      const forged = await browser.post(post.action!, { ...post.fields!, SAMLRequest: Buffer.from(xml).toString("base64") });
      expect(forged.status).toBe(400);
      expect((await logout_events()).slice(-4).map((e) => e.reason)).toEqual(["unsigned", "unsigned", "bad_signature", "bad_signature"]);
      // Still signed in.
      expect((await sign_in(browser, a)).asked_password).toBe(false);
    }, 60_000);

    test("identity provider initiated: signing out at /logout sends each participant its signed LogoutRequest", async () => {
      const browser = new Browser();
      const at_a = await sign_in(browser, a);
      const at_b = await sign_in(browser, b);
      const confirm = await (await browser.get(`${t.issuer}/logout`)).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(confirm)![1]!;
      const page = await browser.post(`${t.issuer}/logout/confirm`, { csrf, decision: "logout" });
      expect(page.status).toBe(200);
      const frames = iframe_sources(await page.text());
      expect(frames.map((url) => url.split("?")[0])).toEqual([A.slo, B.slo]);
      for (const [sp, parsed, url] of [
        [a, at_a.parsed, frames[0]!],
        [b, at_b.parsed, frames[1]!],
      ] as const) {
        const told = await sp.idp_logout_request("redirect", query_of(url).SAMLRequest!, query_of(url));
        expect(told.error).toBeUndefined();
        expect(told).toMatchObject({ name_id: parsed.name_id, name_id_format: parsed.name_id_format, session_index: [parsed.session_index], signature_ok: true });
      }
      const csp = page.headers.get("content-security-policy")!;
      expect(csp).toContain("https://a.example.test");
      expect(csp).toContain("https://b.example.test");
      // A LogoutResponse coming back (in its iframe) is acknowledged.
      const ack = await browser.get(`${t.issuer}/saml/slo?SAMLResponse=x`);
      expect(ack.status).toBe(200);
    }, 60_000);

    test("identity provider initiated, HTTP-POST only: the iframe holds a form that posts the signed LogoutRequest, allowed by the page's CSP", async () => {
      const browser = new Browser();
      const at_c = await sign_in(browser, c);
      const confirm = await (await browser.get(`${t.issuer}/logout`)).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(confirm)![1]!;
      const page = await browser.post(`${t.issuer}/logout/confirm`, { csrf, decision: "logout" });
      const html = await page.text();
      const srcdoc = /<iframe[^>]* srcdoc="([^"]+)"/
        .exec(html)![1]!
        .replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
        .replace(/&amp;/g, "&")
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">");
      expect(form_action(srcdoc)).toBe(C.slo);
      const told = await c.idp_logout_request("post", hidden_field(srcdoc, "SAMLRequest")!);
      expect(told.error).toBeUndefined();
      expect(told).toMatchObject({ name_id: at_c.parsed.name_id, session_index: [at_c.parsed.session_index], xml_signed: true });
      // The form's target and its one script are what the page's CSP allows.
      const csp = page.headers.get("content-security-policy")!;
      expect(csp).toContain("form-action 'self' https://c.example.test");
      expect(csp).toMatch(/script-src 'sha256-[^']+'/);
      const ack = await browser.get(`${t.issuer}/saml/slo?SAMLResponse=x`);
      expect(ack.status).toBe(200);
    }, 60_000);
  });
}
