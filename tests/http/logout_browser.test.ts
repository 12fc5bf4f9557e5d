/**
 * The logout pages in a real browser (Debian's Chromium through playwright-core): "Log out" on
 * the confirmation page lands on the client's post_logout_redirect_uri — which only works if the
 * page's CSP form-action allows the client's origin, as Chromium applies it to the redirect
 * after the POST — with no CSP violation; both pages pass axe-core and fit a narrow screen.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import type { Browser, Page } from "playwright-core";
import { axe, chromium_available, launch, overflow, serious } from "../helpers/chromium.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let browser: Browser;
let rp: FetchServer;
let callback: string;
let bye: string;
let client_id: string;

beforeAll(async () => {
  if (!chromium_available) return;
  t = await start_provider();
  const port = await free_port();
  rp = await serve_fetch(() => new Response("<!doctype html><title>RP</title><p>back at the app</p>", { headers: { "content-type": "text/html" } }), { port });
  callback = `http://127.0.0.1:${port}/callback`;
  bye = `http://127.0.0.1:${port}/bye`;
  const { client } = await t.add_client({ client_name: "Browser App", redirect_uris: [callback], post_logout_redirect_uris: [bye] });
  client_id = client.client_id;
  browser = await launch();
}, 90_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  await rp.stop();
  await t.stop();
});

async function sign_in(page: Page): Promise<void> {
  const p = pkce();
  await page.goto(authorization_url(t, { redirect_uri: callback, scope: "openid", code_challenge: p.challenge, code_challenge_method: "S256" }, client_id));
  await page.getByLabel("Username").fill("alice");
  await page.getByLabel("Password").fill(t.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/consent$|\/callback/);
  if (page.url().endsWith("/consent")) await page.getByRole("button", { name: "Allow" }).click();
  await page.waitForURL((url) => url.href.startsWith(callback));
}

function logout_url(): string {
  const url = new URL(`${t.issuer}/logout`);
  url.searchParams.set("client_id", client_id);
  url.searchParams.set("post_logout_redirect_uri", bye);
  url.searchParams.set("state", "bye-st");
  return url.href;
}

describe.skipIf(!chromium_available)("in Chromium", () => {
  test("confirm “Log out” and land on the post_logout_redirect_uri with state, without CSP violations", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    page.on("console", (message) => void (/Content Security Policy/i.test(message.text()) && violations.push(message.text())));
    await sign_in(page);
    await page.goto(logout_url());
    expect(await page.locator("h1").innerText()).toBe("Sign out?");
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL((url) => url.href.startsWith(bye));
    expect(new URL(page.url()).searchParams.get("state")).toBe("bye-st");
    expect(violations).toEqual([]);
    // Signed out: the next authorization asks for the password again.
    await page.goto(authorization_url(t, { redirect_uri: callback, scope: "openid", code_challenge: pkce().challenge, code_challenge_method: "S256" }, client_id));
    expect(await page.title()).toContain("Sign in");
    await context.close();
  }, 60_000);

  test("“Stay signed in” keeps the session", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await sign_in(page);
    await page.goto(logout_url());
    await page.getByRole("button", { name: "Stay signed in" }).click();
    await page.waitForLoadState();
    expect(await page.locator("h1").innerText()).toBe("You are still signed in");
    expect((await context.cookies()).some((cookie) => cookie.name === "idp_session")).toBe(true);
    await context.close();
  }, 60_000);

  test("the confirmation and signed-out pages pass axe-core and fit a narrow screen", async () => {
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 320, height: 640 } });
    const page = await context.newPage();
    await sign_in(page);
    await page.goto(logout_url());
    expect(serious(await axe(page))).toEqual([]);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.goto(`${t.issuer}/logout`);
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForLoadState();
    expect(await page.locator("h1").innerText()).toBe("You are signed out");
    for (const scheme of ["dark", "light"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(serious(await axe(page))).toEqual([]);
    }
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await context.close();
  }, 60_000);
});
