/**
 * Page details a new user notices (issue 14): a favicon, the recovery codes' one-time notice
 * styled as a warning, and a throttled sign-in that says how long to wait.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { VIEWS_DIR } from "../../src/app/server.ts";
import { Fw } from "../../src/fw/index.ts";
import { wait_words } from "../../src/http/errors.ts";
import { layout_values } from "../../src/http/pages/layout.ts";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

async function open_login(browser: Browser): Promise<{ action: string; csrf: string; html: string; csp: string }> {
  const p = pkce();
  const start = await browser.get(authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }));
  const response = await browser.get(start.headers.get("location")!);
  const html = await response.text();
  return { action: form_action(html)!, csrf: hidden_field(html, "csrf")!, html, csp: response.headers.get("content-security-policy") ?? "" };
}

describe("pages", () => {
  test("every page links an SVG favicon, served from /static and allowed by the CSP", async () => {
    const { html, csp } = await open_login(new Browser());
    expect(html).toContain(`<link rel="icon" href="${t.issuer}/static/favicon.svg" type="image/svg+xml">`);
    const icon = await fetch(`${t.url}/static/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(await icon.text()).toStartWith("<svg");
    expect(csp).toMatch(/img-src 'self'/);
  });

  test("the recovery codes' one-time notice is a warning, styled as one", () => {
    const views = new Fw.ViewEngine({ templates: Fw.read_templates(VIEWS_DIR) });
    const html = views.render("recovery_codes", { ...layout_values(t.provider, "Recovery codes"), heading: "Recovery codes", codes: ["aaaa-bbbb"], next: "/account" });
    expect(html).toContain('<p class="notice warning" role="status">This is the only time they are shown.</p>');
    const css = readFileSync(join(import.meta.dirname, "..", "..", "static", "style.css"), "utf8");
    expect(css).toMatch(/\.notice\.warning \{[^}]*background: var\(--warn-bg\)/);
  });

  test("a throttled sign-in (429) says how long to wait", async () => {
    await t.add_user({ username: "impatient" });
    const browser = new Browser();
    const login = await open_login(browser);
    let blocked: Response | undefined;
    for (let i = 0; i < 20 && blocked === undefined; i++) {
      const response = await browser.post(login.action, { csrf: login.csrf, username: "impatient", password: `guess-${i}` });
      if (response.status === 429) blocked = response;
    }
    expect(blocked?.status).toBe(429);
    const retry = Number(blocked!.headers.get("retry-after"));
    const text = await blocked!.text();
    expect(text).toContain("Too many attempts");
    expect(text).toContain(`Try again in ${wait_words(retry)}.`);
    expect(text).toMatch(/Try again in \d+ (minutes?|seconds?)\./);
  });

  test("wait_words rounds up to seconds, minutes or hours", () => {
    expect([wait_words(1), wait_words(40.2), wait_words(60), wait_words(61), wait_words(240), wait_words(900), wait_words(3601)]).toEqual([
      "1 second",
      "41 seconds",
      "1 minute",
      "2 minutes",
      "4 minutes",
      "15 minutes",
      "2 hours",
    ]);
  });
});
