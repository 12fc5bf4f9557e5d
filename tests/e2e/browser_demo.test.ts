/**
 * The demo end to end in Chromium: `serve --demo` on an empty database, then /demo → sign in as
 * the printed demo user → consent → /demo/callback shows the validated ID Token and the userinfo
 * answer. Checked with axe-core and screenshotted like the other pages (a11y.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Browser } from "playwright-core";
import { load_config } from "../../src/app/config.ts";
import { serve, type Served } from "../../src/app/server.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";
import { axe, chromium_available, launch, screenshots, serious } from "../helpers/chromium.ts";
import { free_port } from "../helpers/provider.ts";

let served: Served;
let store: Store;
let browser: Browser;
let password = "";
let issuer = "";

beforeAll(async () => {
  if (!chromium_available) return;
  const port = await free_port();
  issuer = `http://127.0.0.1:${port}`;
  const config = load_config({}, { issuer, port, database_url: "sqlite::memory:", signing_algs: ["RS256"], log_requests: false, argon2: { memory_kib: 1024, time_cost: 1 } });
  store = await open_store("sqlite::memory:", { migrate: true });
  let printed = "";
  served = await serve(config, { store, port, seed_demo: true, out: (text) => void (printed += text), log: () => {} });
  password = /user: {3}demo \/ (\S+)/.exec(printed)![1]!;
  browser = await launch();
}, 90_000);

afterAll(async () => {
  if (!chromium_available) return;
  await browser.close();
  await served.stop();
  await store.close();
});

describe.skipIf(!chromium_available)("the demo in Chromium", () => {
  test("/demo → sign in → allow → the callback page shows the claims; acr mfa without an app stops on a clear page", async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${issuer}/demo`);
    await page.getByLabel("Username").fill("demo");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/consent$/);
    expect(await page.locator("h1").innerText()).toContain("Demo App");
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((url) => url.pathname === "/demo/callback");
    expect(await page.locator("h1").innerText()).toBe("You are signed in to the demo app");
    const claims = JSON.parse(await page.getByLabel("ID Token claims").innerText()) as Record<string, unknown>;
    expect(claims.iss).toBe(issuer);
    expect(claims.aud).toBe("demo");
    expect(claims.amr).toEqual(["pwd"]);
    const userinfo = JSON.parse(await page.getByLabel("Userinfo answer").innerText()) as Record<string, unknown>;
    expect(userinfo.sub).toBe(claims.sub);
    expect(userinfo.email).toBe("demo@example.com");
    expect(serious(await axe(page))).toEqual([]);
    await screenshots(page, "demo-callback");

    // Two-step verification asked for, but the demo user has no authenticator app yet.
    await page.getByRole("link", { name: "Sign in with two-step verification" }).click();
    await page.getByLabel("Password").fill(password);
    await page.getByLabel("Username").fill("demo");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "This application requires two-step verification" }).waitFor();
    expect(serious(await axe(page))).toEqual([]);
    await screenshots(page, "error-two-step-required");
    await context.close();
  }, 90_000);
});
