/**
 * response_mode=form_post in a real browser (Debian's Chromium through playwright-core): the page
 * submits itself under our CSP (the inline script is allowed by its hash, and form-action allows
 * the client's origin), with no CSP violation; with JavaScript off, the Continue button does it.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { chromium_available as available, launch } from "../helpers/chromium.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { ISSUED_SECRET } from "../helpers/shapes.ts";

let t: TestProvider;
let browser: Browser;
let rp: FetchServer;
let callback: string;
let client_id: string;
/** Bodies of the POSTs the client's callback received. */
const posts: URLSearchParams[] = [];

beforeAll(async () => {
  if (!available) return;
  t = await start_provider();
  const port = await free_port();
  rp = await serve_fetch(
    async (request) => {
      if (request.method === "POST") posts.push(new URLSearchParams(await request.text()));
      return new Response("<!doctype html><title>RP</title><p>back at the app</p>", { headers: { "content-type": "text/html" } });
    },
    { port },
  );
  callback = `http://127.0.0.1:${port}/callback`;
  const { client } = await t.add_client({ client_name: "Form Post App", redirect_uris: [callback] });
  client_id = client.client_id;
  browser = await launch();
}, 90_000);

afterAll(async () => {
  if (!available) return;
  await browser.close();
  await rp.stop();
  await t.stop();
});

function start_url(): string {
  const p = pkce();
  return authorization_url(t, { redirect_uri: callback, response_mode: "form_post", code_challenge: p.challenge, code_challenge_method: "S256" }, client_id);
}

function watch_csp(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

async function sign_in(page: Page): Promise<void> {
  await page.getByLabel("Username").fill("alice");
  await page.getByLabel("Password").fill(t.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

describe.skipIf(!available)("form_post in Chromium", () => {
  test("the form_post page submits itself under the CSP (hash-allowed script), posting code, state and iss", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations = watch_csp(page);
    const before = posts.length;
    await page.goto(start_url());
    await sign_in(page);
    await page.waitForURL(/\/consent$/);
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(callback);
    expect(posts.length).toBe(before + 1);
    const body = posts.at(-1)!;
    expect(body.get("code")).toMatch(ISSUED_SECRET);
    expect(body.get("state")).toBe("st-123");
    expect(body.get("iss")).toBe(t.issuer);
    expect(violations).toEqual([]);
    await context.close();
  }, 60_000);

  test("without JavaScript, the Continue button posts the response", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const before = posts.length;
    // Already consented in the test above: sign-in leads straight to the form_post page.
    await page.goto(start_url());
    await sign_in(page);
    const button = page.getByRole("button", { name: "Continue" });
    await button.waitFor();
    expect(posts.length).toBe(before);
    await button.click();
    await page.waitForURL(callback);
    expect(posts.length).toBe(before + 1);
    expect(posts.at(-1)!.get("code")).toMatch(ISSUED_SECRET);
    await context.close();
  }, 60_000);

  test("the form_post page passes axe-core (WCAG 2 A/AA)", async () => {
    // axe is injected, so the CSP is bypassed; the auto-submit script is taken out of the page
    // (it would leave before the check), everything else is served as is.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.route(/\/interaction\/[^/]+\/login$/, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: (await response.text()).replace(/<script>[^<]*<\/script>/, "") });
    });
    await page.goto(start_url());
    await sign_in(page);
    await page.getByRole("button", { name: "Continue" }).waitFor();
    await page.addScriptTag({ content: readFileSync(join(import.meta.dirname, "../../node_modules/axe-core/axe.min.js"), "utf8") });
    const result = (await page.evaluate(`axe.run(document, { runOnly: ["wcag2a", "wcag2aa"] })`)) as { violations: { id: string; help: string }[] };
    expect(result.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await context.close();
  }, 60_000);
});
