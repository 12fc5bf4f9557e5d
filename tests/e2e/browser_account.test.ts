/**
 * The sign-in pages, two-step verification and the account page in Chromium, with a real
 * relying party (openid-client) on the other side: sign in and allow, wrong password, deny,
 * keyboard only, TOTP enrolment read off the page and sign-in with the code (amr and acr checked
 * by the RP), removing an application's access (consent is asked again), changing the password
 * and signing out from the account page.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Browser, Page } from "playwright-core";
import { totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { chromium_available, launch } from "../helpers/chromium.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_rp, type RelyingParty } from "../helpers/rp.ts";

let t: TestProvider;
let rp: RelyingParty;
let browser: Browser;

beforeAll(async () => {
  if (!chromium_available) return;
  t = await start_provider();
  const port = await free_port();
  const { client, secret } = await t.add_client({
    client_name: "Browser App",
    redirect_uris: [`http://127.0.0.1:${port}/callback`],
    token_endpoint_auth_method: "client_secret_basic",
  });
  rp = await start_rp(t.issuer, port, client.client_id, secret);
  browser = await launch();
}, 90_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  rp.stop();
  await t.stop();
});

async function fresh_page(): Promise<Page> {
  const context = await browser.newContext();
  return context.newPage();
}

async function sign_in_form(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function rp_claims(page: Page): Promise<Record<string, unknown>> {
  await page.waitForURL((url) => url.href.startsWith(rp.callback));
  const error = await page.locator("#error").count();
  if (error > 0) throw new Error(await page.locator("#error").innerText());
  return JSON.parse(await page.locator("#claims").innerText()) as Record<string, unknown>;
}

const code_now = (secret: string) => totp_code(secret, totp_step(t.clock.now()));

describe.skipIf(!chromium_available)("Chromium with an openid-client relying party", () => {
  test("sign in (after a wrong password), allow, and the RP has a validated ID Token and userinfo", async () => {
    const page = await fresh_page();
    await page.goto(`${rp.url}/login`);
    await sign_in_form(page, "alice", "not the password");
    expect(await page.getByRole("alert").innerText()).toContain("Wrong username or password.");
    await sign_in_form(page, "alice", t.password);
    await page.waitForURL(/\/consent$/);
    await page.getByRole("button", { name: "Allow" }).click();
    const claims = await rp_claims(page);
    expect(claims.sub).toBe(t.user.id);
    expect(claims.amr).toEqual(["pwd"]);
    expect(JSON.parse(await page.locator("#userinfo").innerText()).email).toBe("alice@example.com");
    await page.context().close();
  }, 60_000);

  test("deny: the RP gets access_denied", async () => {
    await t.add_user({ username: "dana" });
    const page = await fresh_page();
    await page.goto(`${rp.url}/login`);
    await sign_in_form(page, "dana", t.password);
    await page.getByRole("button", { name: "Deny" }).click();
    await page.waitForURL((url) => url.href.startsWith(rp.callback));
    expect(await page.locator("#error").innerText()).toBe("access_denied");
    await page.context().close();
  }, 60_000);

  test("keyboard only: type, Tab, Enter; Tab to Allow (focus visible), Enter", async () => {
    await t.add_user({ username: "kim" });
    const page = await fresh_page();
    await page.goto(`${rp.url}/login`);
    await page.waitForFunction(() => document.activeElement?.id === "username");
    await page.keyboard.type("kim");
    await page.keyboard.press("Tab");
    await page.keyboard.type(t.password);
    await Promise.all([page.waitForURL(/\/consent$/), page.keyboard.press("Enter")]);
    let focused = "";
    for (let i = 0; i < 10 && focused !== "Allow"; i++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
    }
    expect(focused).toBe("Allow");
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe("none");
    await page.keyboard.press("Enter");
    expect((await rp_claims(page)).amr).toEqual(["pwd"]);
    await page.context().close();
  }, 60_000);

  test("two-step verification: set up on the account page, then the RP sees amr pwd+otp (and acr mfa when asked)", async () => {
    const user = await t.add_user({ username: "tess", name: "Tess" });
    const account = await fresh_page();
    await account.goto(`${t.url}/account`);
    await account.waitForURL(/\/account\/login$/);
    await sign_in_form(account, "tess", t.password);
    await account.waitForURL(/\/account$/);
    await account.getByRole("link", { name: "Set up two-step verification" }).click();
    await account.waitForURL(/\/account\/totp$/);
    // The QR code is an image the page CSP allows (data:), and it is drawn.
    expect(await account.locator("img.qr").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const secret = (await account.locator("#secret").innerText()).replaceAll(" ", "");
    await account.getByLabel("Enter the 6-digit code the app shows").fill(code_now(secret));
    await account.getByRole("button", { name: "Turn on" }).click();
    expect(await account.getByRole("heading", { level: 1 }).innerText()).toBe("Two-step verification is on");
    expect(await account.locator(".codes li").count()).toBe(10);
    await account.getByRole("link", { name: "I have saved my recovery codes" }).click();
    expect(await account.getByRole("status").innerText()).toContain("Two-step verification is on.");
    await account.context().close();

    // The confirmation code's step is used: the next one signs in.
    t.clock.advance(30);
    const page = await fresh_page();
    await page.goto(`${rp.url}/login`);
    await sign_in_form(page, "tess", t.password);
    await page.waitForURL(/\/two-factor$/);
    await page.getByLabel("6-digit code").fill(code_now(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(/\/consent$/);
    await page.getByRole("button", { name: "Allow" }).click();
    const claims = await rp_claims(page);
    expect(claims.sub).toBe(user.id);
    expect(claims.amr).toEqual(["pwd", "otp"]);
    // Signed in with both factors: acr_values=mfa is satisfied without a new sign-in.
    await page.goto(`${rp.url}/login?acr_values=mfa`);
    expect((await rp_claims(page)).acr).toBe("mfa");

    // The account page: remove the application's access, then the RP's next sign-in asks consent again.
    await page.goto(`${t.url}/account`);
    await page.getByRole("button", { name: "Remove access for Browser App" }).click();
    expect(await page.getByRole("status").innerText()).toContain("Access removed.");
    await page.goto(`${rp.url}/login`);
    await page.waitForURL(/\/consent$/);
    await page.context().close();
  }, 90_000);

  test("account page: change the password, then sign out through the logout confirmation", async () => {
    await t.add_user({ username: "pia" });
    const page = await fresh_page();
    await page.goto(`${t.url}/account/login`);
    await sign_in_form(page, "pia", t.password);
    await page.waitForURL(/\/account$/);
    await page.getByLabel("Current password").fill(t.password);
    await page.getByLabel("New password", { exact: true }).fill("a brand new passphrase");
    await page.getByLabel("New password again").fill("a brand new passphrase");
    await page.getByRole("button", { name: "Change password" }).click();
    expect(await page.getByRole("status").innerText()).toContain("Your password was changed.");
    await page.getByRole("link", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Log out" }).click();
    await page.goto(`${t.url}/account`);
    await page.waitForURL(/\/account\/login$/);
    await sign_in_form(page, "pia", "a brand new passphrase");
    await page.waitForURL(/\/account$/);
    await page.context().close();
  }, 60_000);
});
