/**
 * The pages in a real browser (Debian's Chromium through playwright-core): sign in, consent,
 * and the redirect back to the client — which only works if the CSP's form-action allows the
 * client's origin, since Chromium applies form-action to the redirects after a form POST.
 * Also: no CSP violations, keyboard-only sign-in, and an axe-core accessibility check.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { chromium_available as available, launch } from "../helpers/chromium.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { free_port } from "../helpers/provider.ts";
import { start_target, type E2eProvider } from "../helpers/target.ts";
import { ISSUED_SECRET } from "../helpers/shapes.ts";

// In CI this suite also runs against the compiled executable (tests/helpers/target.ts).
let t: E2eProvider;
let browser: Browser;
let rp: FetchServer;
let callback: string;
let client_id: string;

beforeAll(async () => {
  if (!available) return;
  t = await start_target();
  const port = await free_port();
  rp = await serve_fetch(() => new Response("<!doctype html><title>RP</title><p>back at the app</p>", { headers: { "content-type": "text/html" } }), { port });
  callback = `http://127.0.0.1:${port}/callback`;
  const { client } = await t.add_client({ client_name: "Browser App", redirect_uris: [callback] });
  client_id = client.client_id;
  browser = await launch();
}, 90_000);

afterAll(async () => {
  if (!available) return;
  await browser.close();
  await rp.stop();
  await t.stop();
});

function start_url(scope = "openid profile"): string {
  const p = pkce();
  return authorization_url(t, { redirect_uri: callback, scope, code_challenge: p.challenge, code_challenge_method: "S256" }, client_id);
}

/** Collects CSP violations reported to the console. */
function watch_csp(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

describe.skipIf(!available)("in Chromium", () => {
  test("sign in, allow, and land on the client's callback with a code, state and iss", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations = watch_csp(page);
    await page.goto(start_url());
    expect(await page.title()).toContain("Sign in");
    await page.getByLabel("Username").fill("alice");
    await page.getByLabel("Password").fill(t.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/consent$/);
    expect(await page.locator("h1").innerText()).toContain("Browser App");
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((url) => url.href.startsWith(callback));
    const url = new URL(page.url());
    expect(url.searchParams.get("code")).toMatch(ISSUED_SECRET);
    expect(url.searchParams.get("state")).toBe("st-123");
    expect(url.searchParams.get("iss")).toBe(t.issuer);
    expect(violations).toEqual([]);
    await context.close();
  }, 60_000);

  test("keyboard only: type, Enter, and a wrong password shows the message", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(start_url("openid email"));
    // The username field has focus on arrival (autofocus), so typing goes straight into it.
    await page.waitForFunction(() => document.activeElement?.id === "username");
    await page.keyboard.type("alice");
    await page.keyboard.press("Tab");
    await page.keyboard.type("wrong password");
    await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), page.keyboard.press("Enter")]);
    expect(await page.getByRole("alert").innerText()).toContain("Wrong username or password");
    // Back on the page, the username is kept and the password field has focus.
    await page.waitForFunction(() => document.activeElement?.id === "password");
    expect(await page.getByLabel("Username").inputValue()).toBe("alice");
    await page.keyboard.type(t.password);
    await Promise.all([page.waitForURL(/\/consent$/), page.getByLabel("Password").press("Enter")]);
    await page.getByRole("button", { name: "Deny" }).click();
    await page.waitForURL((url) => url.href.startsWith(callback));
    expect(new URL(page.url()).searchParams.get("error")).toBe("access_denied");
    await context.close();
  }, 60_000);

  test("the pages pass axe-core (WCAG 2 A/AA)", async () => {
    // axe is injected as a script, which our CSP (rightly) forbids: bypass it for this check only.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const axe = readFileSync(join(import.meta.dirname, "../../node_modules/axe-core/axe.min.js"), "utf8");
    const check = async () => {
      await page.addScriptTag({ content: axe });
      const result = (await page.evaluate(`axe.run(document, { runOnly: ["wcag2a", "wcag2aa"] })`)) as { violations: { id: string; help: string }[] };
      return result.violations.map((v) => `${v.id}: ${v.help}`);
    };
    await page.goto(start_url("openid phone"));
    expect(await check()).toEqual([]);
    await page.getByLabel("Username").fill("alice");
    await page.getByLabel("Password").fill(t.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/consent$/);
    expect(await check()).toEqual([]);
    await page.goto(`${t.url}/authorize?client_id=nobody`);
    expect(await check()).toEqual([]);
    for (const scheme of ["dark", "light"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await check()).toEqual([]);
    }
    await context.close();
  }, 60_000);

  test("a narrow phone screen needs no horizontal scrolling", async () => {
    const context = await browser.newContext({ viewport: { width: 320, height: 640 } });
    const page = await context.newPage();
    await page.goto(start_url());
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await context.close();
  }, 60_000);
});
