/**
 * Every page of the provider in Chromium: axe-core (WCAG 2.0/2.1 A and AA) finds no serious or
 * critical violation, nothing scrolls sideways on a phone, and a screenshot of each page at phone
 * (390×844) and desktop (1280×800) width goes to test-artifacts/screenshots/ (not committed).
 *
 * axe is injected as a script, which the page CSP forbids: these contexts bypass the CSP, for
 * this check only (the other browser tests run under the real CSP).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { PHONE, axe, chromium_available, launch, overflow, screenshots, serious } from "../helpers/chromium.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let browser: Browser;

beforeAll(async () => {
  if (!chromium_available) return;
  t = await start_provider();
  await t.add_user({ username: "ada", name: "Ada Lovelace", email: "ada@example.com", email_verified: true });
  browser = await launch();
}, 90_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  await t.stop();
});

const checked: string[] = [];

/** axe (light and dark), no sideways scrolling at phone width, screenshots. */
async function check(page: Page, name: string): Promise<void> {
  await page.setViewportSize(PHONE);
  expect(await overflow(page)).toBeLessThanOrEqual(0);
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
    expect({ page: name, scheme, problems: serious(await axe(page)) }).toEqual({ page: name, scheme, problems: [] });
  }
  await page.emulateMedia({ colorScheme: "light", reducedMotion: "reduce" });
  await screenshots(page, name);
  checked.push(name);
}

/** reducedMotion: the buttons' colour transition would otherwise be measured half-way after a scheme switch. */
function a11y_context(): Promise<BrowserContext> {
  return browser.newContext({ bypassCSP: true, reducedMotion: "reduce" });
}

async function sign_in_form(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

function start_url(scope = "openid profile email"): string {
  const p = pkce();
  return authorization_url(t, { scope, code_challenge: p.challenge, code_challenge_method: "S256" });
}

describe.skipIf(!chromium_available)("every page: axe-core, phone width, screenshots", () => {
  test("sign-in, sign-in with an error, consent, error page", async () => {
    const context = await a11y_context();
    const page = await context.newPage();
    await page.goto(start_url());
    await check(page, "login");
    await sign_in_form(page, "ada", "wrong");
    await page.getByRole("alert").waitFor();
    await check(page, "login-error");
    await sign_in_form(page, "ada", t.password);
    await page.waitForURL(/\/consent$/);
    await check(page, "consent");
    await page.goto(`${t.url}/authorize?client_id=nobody`);
    await check(page, "error");
    await context.close();
  }, 90_000);

  test("account sign-in, account, set-up, recovery codes, two-factor prompt, sign-out pages", async () => {
    const context = await a11y_context();
    const page = await context.newPage();
    await page.goto(`${t.url}/account`);
    await page.waitForURL(/\/account\/login$/);
    await check(page, "account-login");
    await sign_in_form(page, "ada", t.password);
    await page.waitForURL(/\/account$/);
    await check(page, "account");
    await page.goto(`${t.url}/account/totp`);
    await check(page, "account-totp");
    const secret = (await page.locator("#secret").innerText()).replaceAll(" ", "");
    await page.getByLabel("Enter the 6-digit code the app shows").fill("000000" === totp_code(secret, totp_step(t.clock.now())) ? "111111" : "000000");
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("alert").waitFor();
    await check(page, "account-totp-error");
    await page.getByLabel("Enter the 6-digit code the app shows").fill(totp_code(secret, totp_step(t.clock.now())));
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.locator(".codes").waitFor();
    await check(page, "recovery-codes");
    await page.goto(`${t.url}/account?done=totp_enabled`);
    await check(page, "account-with-totp");

    // With grants listed.
    const other = await (await a11y_context()).newPage();
    await other.goto(start_url());
    await sign_in_form(other, "ada", t.password);
    await other.waitForURL(/\/two-factor$/);
    await check(other, "two-factor");
    await other.getByText("Use a recovery code instead").click();
    await other.getByLabel("Recovery code").fill("aaaaa-aaaaa");
    await other.getByRole("button", { name: "Use recovery code" }).click();
    await other.getByRole("alert").waitFor();
    await check(other, "two-factor-error");
    await other.context().close();

    await page.goto(`${t.url}/logout`);
    await page.getByRole("button", { name: "Log out" }).waitFor();
    await check(page, "logout");
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForLoadState();
    await check(page, "logged-out");
    await context.close();
  }, 120_000);

  test("an account with applications listed", async () => {
    const context = await a11y_context();
    const page = await context.newPage();
    await t.add_user({ username: "bea", name: "Bea" });
    await page.goto(start_url("openid profile email phone"));
    await sign_in_form(page, "bea", t.password);
    await page.waitForURL(/\/consent$/);
    // The test client's callback is not a real site: answer it here; only the consent is wanted.
    await page.route("https://rp.example.com/**", (route) => route.fulfill({ contentType: "text/html", body: "<!doctype html><title>RP</title>" }));
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((url) => url.href.startsWith("https://rp.example.com/"));
    await page.goto(`${t.url}/account`);
    await page.getByRole("button", { name: "Remove access for Test App" }).waitFor();
    await check(page, "account-with-applications");
    await context.close();
    expect(checked.length).toBeGreaterThanOrEqual(13);
  }, 90_000);
});
