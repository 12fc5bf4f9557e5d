/**
 * Apache's mod_auth_mellon (a real SAML service provider, on lasso and xmlsec) protecting a page,
 * driven by Chromium: the page sends the browser to our sign-in page with a signed AuthnRequest
 * over HTTP-Redirect, the user signs in, the auto-submitted form (its one script allowed by hash)
 * carries the signed Assertion back, and the page shows what mellon read: the persistent NameID
 * and the attributes. A user outside the allowed groups is refused on a page of ours, and a
 * Response changed on its way is refused by mellon.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Browser, Page } from "playwright-core";
import { create_saml_service_provider, update_saml_service_provider } from "../../src/oidc/admin/saml.ts";
import { persistent_id } from "../../src/oidc/saml/subject.ts";
import { chromium_available, launch } from "../helpers/chromium.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { mellon_available, start_mellon, type Mellon } from "./mellon.ts";

let t: TestProvider;
let mellon: Mellon;
let browser: Browser;

async function fresh_page(): Promise<Page> {
  return (await browser.newContext()).newPage();
}

async function sign_in(page: Page, username: string): Promise<void> {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(t.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

const shown = (page: Page, id: string) => page.locator(`#${id}`).innerText();

describe.skipIf(!chromium_available || !mellon_available)("mod_auth_mellon in Chromium", () => {
  beforeAll(async () => {
    t = await start_provider();
    mellon = await start_mellon(await (await fetch(`${t.url}/saml/metadata`)).text());
    await create_saml_service_provider(t.store, { metadata_xml: mellon.metadata, name: "Intranet" }, t.clock.now());
    browser = await launch();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await mellon?.stop();
    await t?.stop();
  });

  test("the protected page: our sign-in page, then mellon shows the NameID and the attributes", async () => {
    const page = await fresh_page();
    const response = await page.goto(`${mellon.url}/protected/`);
    expect(new URL(page.url()).origin).toBe(t.url);
    expect(new URL(page.url()).pathname).toBe("/account/login");
    expect(response?.status()).toBe(200);
    // The sign-in page says whom the user signs in to.
    expect(await page.locator(".lead").innerText()).toBe("to continue to Intranet");
    await sign_in(page, "alice");
    await page.waitForURL(`${mellon.url}/protected/`);
    const row = (await t.store.get_saml_service_provider(mellon.entity_id))!;
    const name_id = persistent_id(row.nameid_salt, t.user.id);
    expect(await shown(page, "MELLON_NAME_ID")).toBe(name_id);
    expect(await shown(page, "REMOTE_USER")).toBe(name_id);
    expect(await shown(page, "MELLON_uid")).toBe("alice");
    expect(await shown(page, "MELLON_mail")).toBe("alice@example.com");
    expect(await shown(page, "MELLON_displayName")).toBe("Alice Liddell");
    // mellon signed its request (its metadata says AuthnRequestsSigned), and we verified it.
    const [event] = await t.store.list_audit_events({ type: "saml_login" });
    expect(event).toMatchObject({ outcome: "success", user_id: t.user.id, details: { entity_id: mellon.entity_id, binding: "redirect", signed: true } });
    // Signed in at the provider: the page again needs no sign-in; a new mellon session neither.
    await page.context().clearCookies({ name: "mellon-cookie" });
    await page.goto(`${mellon.url}/protected/`);
    await page.waitForURL(`${mellon.url}/protected/`);
    expect(await shown(page, "MELLON_uid")).toBe("alice");
    await page.context().close();
  }, 60_000);

  test("a user outside the allowed groups gets our refusal page, never the protected page", async () => {
    await t.store.create_group({ name: "intranet-users" });
    await t.add_user({ username: "bob", email: "bob@example.com" });
    await update_saml_service_provider(t.store, mellon.entity_id, { allowed_groups: ["intranet-users"] }, t.clock.now());
    try {
      const page = await fresh_page();
      await page.goto(`${mellon.url}/protected/`);
      await sign_in(page, "bob");
      await page.waitForLoadState();
      expect(new URL(page.url()).origin).toBe(t.url);
      expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Access denied");
      expect(await page.locator("body").innerText()).toContain("not in a group allowed to use Intranet");
      await page.context().close();
    } finally {
      await update_saml_service_provider(t.store, mellon.entity_id, { allowed_groups: [] }, t.clock.now());
    }
  }, 60_000);

  test("an encrypted Assertion: mellon decrypts it with MellonSPPrivateKeyFile and shows the attributes", async () => {
    // Its key published for encryption too (a KeyDescriptor use="encryption" beside the signing one).
    const keyed = mellon.metadata.replace(
      /<md:KeyDescriptor use="signing">([\s\S]*?)<\/md:KeyDescriptor>/,
      (all, inner: string) => `${all}<md:KeyDescriptor use="encryption">${inner}</md:KeyDescriptor>`,
    );
    expect(keyed).toContain('use="encryption"');
    await update_saml_service_provider(t.store, mellon.entity_id, { metadata_xml: keyed, encrypt: true }, t.clock.now());
    try {
      const page = await fresh_page();
      let posted = "";
      await page.route(mellon.acs, async (route) => {
        posted = Buffer.from(new URLSearchParams(route.request().postData() ?? "").get("SAMLResponse")!, "base64").toString("utf8");
        await route.continue();
      });
      await page.goto(`${mellon.url}/protected/`);
      await sign_in(page, "alice");
      await page.waitForURL(`${mellon.url}/protected/`);
      expect(posted).toContain("<saml:EncryptedAssertion");
      expect(posted).not.toContain(">alice<");
      expect(await shown(page, "MELLON_uid")).toBe("alice");
      expect(await shown(page, "MELLON_mail")).toBe("alice@example.com");
      await page.context().close();
    } finally {
      await update_saml_service_provider(t.store, mellon.entity_id, { metadata_xml: mellon.metadata, encrypt: false }, t.clock.now());
    }
  }, 60_000);

  test("a Response changed on its way to mellon is refused by mellon", async () => {
    const page = await fresh_page();
    let tampered = false;
    await page.route(mellon.acs, async (route) => {
      const form = new URLSearchParams(route.request().postData() ?? "");
      const xml = Buffer.from(form.get("SAMLResponse")!, "base64").toString("utf8");
      form.set("SAMLResponse", Buffer.from(xml.replaceAll(">alice<", ">admin<")).toString("base64"));
      tampered = xml.includes(">alice<");
      await route.continue({ postData: form.toString() });
    });
    await page.goto(`${mellon.url}/protected/`);
    await sign_in(page, "alice");
    const answer = await page.waitForResponse((r) => r.url() === mellon.acs);
    expect(tampered).toBe(true);
    expect(answer.status()).toBeGreaterThanOrEqual(400);
    expect(page.url()).not.toBe(`${mellon.url}/protected/`);
    await page.context().close();
  }, 60_000);

  test("signing out at the provider reaches mellon's logout endpoint in an iframe: mellon's session ends too", async () => {
    // mellon finds the session of a LogoutRequest by NameID alone: a user with no other mellon session here.
    await t.add_user({ username: "carol", email: "carol@example.com" });
    const page = await fresh_page();
    await page.goto(`${mellon.url}/protected/`);
    await sign_in(page, "carol");
    await page.waitForURL(`${mellon.url}/protected/`);
    const told = page.waitForResponse((r) => r.url().startsWith(`${mellon.slo}?SAMLRequest=`));
    await page.goto(`${t.url}/logout`);
    await page.getByRole("button", { name: "Log out" }).click();
    // mellon accepts our signed LogoutRequest and answers with its LogoutResponse to our SLO.
    const answer = await told;
    expect(answer.status(), mellon.log()).toBe(303);
    expect(answer.headers().location).toContain(`${t.issuer}/saml/slo?SAMLResponse=`);
    await page.waitForLoadState("load");
    // Neither mellon nor the provider has a session: the protected page asks to sign in again.
    await page.goto(`${mellon.url}/protected/`);
    expect(new URL(page.url()).pathname).toBe("/account/login");
    expect(mellon.log()).not.toMatch(/logout/i);
    await page.context().close();
  }, 60_000);
});
