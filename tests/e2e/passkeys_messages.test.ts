/**
 * What static/passkeys.js tells the person when a passkey ceremony fails, in Chromium: the page's
 * words in the page's language (views/passkey_status.eta), never the text of the browser's
 * exception ("127.0.0.1 is an invalid domain", as the WebAuthn helper words a SecurityError).
 * The browser's WebAuthn calls are replaced to fail on demand; the issuer is http://localhost,
 * where the pages offer passkeys (tests/http/passkeys_rp_id.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { translator } from "../../src/oidc/ui/catalogs.ts";
import { chromium_available, launch } from "../helpers/chromium.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

/** The exception text no page may show. */
const RAW = "127.0.0.1 is an invalid domain";

describe.skipIf(!chromium_available)("passkey failures in the browser: the page's words, never the exception's", () => {
  let t: TestProvider;
  let browser: Browser;
  let context: BrowserContext;
  const fr = translator("fr");

  beforeAll(async () => {
    t = await start_provider({ issuer_host: "localhost" });
    browser = await launch();
    context = await browser.newContext({ locale: "fr-FR" });
    // navigator.credentials fails as the test says (window.__fail: a DOMException name), and
    // conditional mediation (the autofill request) is off, so only the button asks.
    await context.addInitScript(`
      window.__fail = "SecurityError";
      if (window.PublicKeyCredential) PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
      const refuse = () => Promise.reject(new DOMException(${JSON.stringify(RAW)}, window.__fail));
      navigator.credentials.get = refuse;
      navigator.credentials.create = refuse;
    `);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  /** A fresh sign-in page of an authorization request, in French. */
  async function sign_in_page(): Promise<Page> {
    const page = await context.newPage();
    await page.goto(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256" }).replace(t.url, t.issuer));
    await page.locator("[data-passkey-start]").waitFor({ state: "visible" });
    return page;
  }

  async function status_after_click(page: Page, expected: string): Promise<string> {
    await page.locator("[data-passkey-start]").click();
    await page.locator("#passkey-status", { hasText: expected }).waitFor({ timeout: 10_000 });
    return page.locator("#passkey-status").innerText();
  }

  test("a SecurityError (an invalid domain): the generic message of the catalog, in French", async () => {
    const page = await sign_in_page();
    try {
      expect(await page.locator("[data-passkey-start]").innerText()).toBe(fr.t("passkey.use"));
      const shown = await status_after_click(page, fr.t("passkey.failed"));
      expect(shown).toBe(fr.t("passkey.failed"));
      expect(await page.content()).not.toContain(RAW);
    } finally {
      await page.close();
    }
  }, 30_000);

  test("a cancelled request (NotAllowedError): the catalog's words for it", async () => {
    const page = await sign_in_page();
    try {
      await page.evaluate(() => void ((window as unknown as { __fail: string }).__fail = "NotAllowedError"));
      expect(await status_after_click(page, fr.t("passkey.cancelled"))).toBe(fr.t("passkey.cancelled"));
      expect(await page.content()).not.toContain(RAW);
    } finally {
      await page.close();
    }
  }, 30_000);

  test("options that cannot be had (a proxy's error page): the catalog's “could not be started”, not the answer's text", async () => {
    const page = await sign_in_page();
    try {
      await page.route("**/passkey/options", (route) => route.fulfill({ status: 502, contentType: "text/html", body: "<h1>502 Bad Gateway</h1>" }));
      expect(await status_after_click(page, fr.t("passkey.not_started"))).toBe(fr.t("passkey.not_started"));
      expect(await page.content()).not.toContain("Bad Gateway");
    } finally {
      await page.close();
    }
  }, 30_000);
});
