/**
 * The operator's brand and theme (IDP_BRAND_*, IDP_THEME_DIR): one provider started with the
 * example theme of examples/theme/, a PNG logo, an SVG favicon, a light brand colour and the
 * example stylesheet, and a real SMTP server. The sign-in page is the theme's, the brand shows on
 * the sign-in, consent and account pages and in a mail, its files are served versioned; bad
 * brand files and broken theme templates stop the start; the consent page shows a client's
 * logo and links only over https, escaped; axe finds nothing serious in light and dark.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser as Chromium } from "playwright-core";
import { load_brand } from "../../src/app/brand.ts";
import { ConfigError, load_config } from "../../src/app/config.ts";
import { serve } from "../../src/app/server.ts";
import { brand_colors, contrast_ratio, sniff_image } from "../../src/oidc/ui/brand.ts";
import { MailRenderer } from "../../src/app/mail/render.ts";
import { load_mail_templates } from "../../src/app/mail/outbox.ts";
import { open_store } from "../../src/store/open.ts";
import { Browser, account_login, form_action, hidden_field } from "../helpers/browser.ts";
import { axe, chromium_available, launch, serious } from "../helpers/chromium.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { start_smtp, type TestSmtp } from "../helpers/smtp.ts";

const EXAMPLE_THEME = join(import.meta.dirname, "..", "..", "examples", "theme");
/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const FAVICON = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" fill="#ffcc00"/></svg>';
const BRAND = "ACME <Corp>";
const COLOR = "#ffcc00";

let dir: string;
let t: TestProvider;
let smtp: TestSmtp;
let chromium: Chromium | null = null;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "idp-brand-"));
  writeFileSync(join(dir, "logo.png"), PNG);
  writeFileSync(join(dir, "favicon.svg"), FAVICON);
  smtp = await start_smtp();
  t = await start_provider({
    config: {
      smtp_url: smtp.url,
      mail_from: "idp@example.com",
      brand: { name: BRAND, logo: join(dir, "logo.png"), favicon: join(dir, "favicon.svg"), color: "#FC0", css: join(EXAMPLE_THEME, "brand.css"), theme_dir: EXAMPLE_THEME },
    },
  });
  if (chromium_available) chromium = await launch();
}, 60_000);

afterAll(async () => {
  await chromium?.close();
  await t?.stop();
  await smtp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function open_login(browser: Browser, client_id = t.client.client_id) {
  const p = pkce();
  const start = await browser.get(authorization_url(t, { scope: "openid email", code_challenge: p.challenge, code_challenge_method: "S256" }, client_id));
  const response = await browser.get(start.headers.get("location")!);
  const html = await response.text();
  return { response, html, action: form_action(html)!, csrf: hidden_field(html, "csrf")! };
}

async function open_consent(browser: Browser, client_id: string) {
  const login = await open_login(browser, client_id);
  const to_consent = await browser.post(login.action, { csrf: login.csrf, username: "alice", password: t.password });
  expect(to_consent.status).toBe(303);
  const response = await browser.get(to_consent.headers.get("location")!);
  expect(response.status).toBe(200);
  return { response, html: await response.text() };
}

/** The brand's URLs in a page, by what they are. */
function brand_links(html: string) {
  const find = (pattern: RegExp) => pattern.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? null;
  return {
    logo: find(/<img class="brand-logo" src="([^"]+)"/),
    favicon: find(/<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/),
    colors: find(/<link rel="stylesheet" href="([^"]+\/static\/brand\/colors\.css\?v=[^"]+)">/),
    custom: find(/<link rel="stylesheet" href="([^"]+\/static\/brand\/custom\.css\?v=[^"]+)">/),
  };
}

function expect_brand(html: string): void {
  expect(html).toContain("ACME &lt;Corp&gt;");
  expect(html).not.toContain(BRAND);
  expect(html).toContain('<span class="site-name">ACME &lt;Corp&gt;</span>');
  const links = brand_links(html);
  expect(links.logo).toStartWith(`${t.issuer}/static/brand/logo.png?v=`);
  expect(links.favicon).toStartWith(`${t.issuer}/static/brand/favicon.svg?v=`);
  expect(links.colors).not.toBeNull();
  expect(links.custom).not.toBeNull();
  // Ours first, then the colours, then the operator's: later rules win.
  expect(html.indexOf("/static/style.css")).toBeLessThan(html.indexOf("/static/brand/colors.css"));
  expect(html.indexOf("/static/brand/colors.css")).toBeLessThan(html.indexOf("/static/brand/custom.css"));
}

describe("the theme directory", () => {
  test("the theme's login.eta replaces the sign-in page, with its partial and its static image", async () => {
    const { response, html } = await open_login(new Browser());
    expect(response.status).toBe(200);
    expect(html).toContain("<h1>Welcome to ACME &lt;Corp&gt;</h1>");
    expect(html).toContain("Trouble signing in? Ask the IT service desk.");
    expect(html).not.toContain("<h1>Sign in</h1>");
    // Still the real form: the theme kept the fields and the token.
    expect(html).toContain('name="username"');
    expect(hidden_field(html, "csrf")).not.toBeNull();
    const icon = await fetch(`${t.url}/static/theme/help.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(icon.headers.get("content-security-policy")).toContain("sandbox");
    expect(await icon.text()).toBe(readFileSync(join(EXAMPLE_THEME, "static", "help.svg"), "utf8"));
    expect_brand(html);
  });

  test("templates the theme leaves out stay ours (the consent page)", async () => {
    const { client } = await t.add_client({ client_name: "Plain" });
    const { html } = await open_consent(new Browser(), client.client_id);
    expect(html).toContain('name="decision" value="allow"');
    expect(html).not.toContain("Trouble signing in?");
    expect_brand(html);
  });

  test("a template that does not compile stops the start, naming the file", async () => {
    const broken = join(dir, "broken");
    mkdirSync(broken);
    writeFileSync(join(broken, "login.eta"), '<% layout("@layout", it) %>\n<% if (it.error { %>oops<% } %>\n');
    const error = await start_error({ theme_dir: broken });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(`brand.theme_dir (IDP_THEME_DIR): ${join(broken, "login.eta")} does not compile`);
  });

  test("a file that replaces no template (a misspelt name), or no such folder, stops the start", async () => {
    const misspelt = join(dir, "misspelt");
    mkdirSync(misspelt);
    writeFileSync(join(misspelt, "logn.eta"), "<p>hello</p>\n");
    expect((await start_error({ theme_dir: misspelt })).message).toContain(`${join(misspelt, "logn.eta")} replaces no template`);
    expect((await start_error({ theme_dir: join(dir, "nowhere") })).message).toContain(`brand.theme_dir (IDP_THEME_DIR): cannot read ${join(dir, "nowhere")}`);
  });
});

/** What `serve` raises when started with these brand settings (it must not start). */
async function start_error(brand: Record<string, string>): Promise<Error> {
  const store = await open_store("sqlite::memory:", { migrate: true });
  try {
    const config = load_config({}, { port: 0, database_url: "sqlite::memory:", log_requests: false, brand });
    const served = await serve(config, { store, port: 0, log: () => {}, out: () => {} });
    await served.stop();
    throw new Error("the provider started");
  } catch (error) {
    return error as Error;
  } finally {
    await store.close();
  }
}

describe("brand files", () => {
  test("served versioned under /static/brand/, cached for a year, with their checked types", async () => {
    const { html } = await open_login(new Browser());
    const links = brand_links(html);
    const logo = await fetch(links.logo!.replace(t.issuer, t.url));
    expect(logo.status).toBe(200);
    expect(logo.headers.get("content-type")).toBe("image/png");
    expect(logo.headers.get("cache-control")).toBe("public, max-age=31536000");
    expect(new Uint8Array(await logo.arrayBuffer())).toEqual(new Uint8Array(PNG));
    const favicon = await fetch(links.favicon!.replace(t.issuer, t.url));
    expect(favicon.headers.get("content-type")).toBe("image/svg+xml");
    expect(favicon.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
    const colors = await (await fetch(links.colors!.replace(t.issuer, t.url))).text();
    // #FC0 normalised; white on it reads 1.6:1, so its text is dark.
    expect(colors).toContain(`--brand: ${COLOR};`);
    expect(colors).toContain("--brand-text: #1b1f24;");
    const custom = await fetch(links.custom!.replace(t.issuer, t.url));
    expect(custom.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await custom.text()).toBe(readFileSync(join(EXAMPLE_THEME, "brand.css"), "utf8"));
    expect((await fetch(`${t.url}/static/brand/logo.svg`)).status).toBe(404);
  });

  test("images are recognised by their first bytes, never by their names", () => {
    expect(sniff_image(new Uint8Array(PNG))?.type).toBe("image/png");
    expect(sniff_image(new TextEncoder().encode(FAVICON))?.type).toBe("image/svg+xml");
    expect(sniff_image(new TextEncoder().encode("\uFEFF<!-- made by hand -->\n<svg viewBox='0 0 1 1'></svg>"))?.type).toBe("image/svg+xml");
    expect(sniff_image(new Uint8Array([0x52, 0x49, 0x46, 0x46, 1, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50]))?.type).toBe("image/webp");
    expect(sniff_image(new TextEncoder().encode("GIF89a..."))).toBeNull();
    expect(sniff_image(new TextEncoder().encode("<html><svg></svg></html>"))).toBeNull();
    expect(sniff_image(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBeNull();
  });

  test("a logo that is not PNG, WebP or SVG, a missing or oversized file, stop the start naming the setting", () => {
    const fake = join(dir, "logo-but-html.png");
    writeFileSync(fake, "<html><body>not an image</body></html>");
    const png_named_svg = join(dir, "really-a-png.svg");
    writeFileSync(png_named_svg, PNG);
    const huge = join(dir, "huge.png");
    writeFileSync(huge, Buffer.concat([PNG, Buffer.alloc(600 * 1024)]));
    const config = (brand: Record<string, string>) => load_config({}, { brand });
    expect(() => load_brand(config({ logo: fake }))).toThrow(`IDP_BRAND_LOGO: ${fake} is not PNG, WEBP or SVG (checked by its content, not its name)`);
    expect(load_brand(config({ logo: png_named_svg })).logo?.name).toBe("brand/logo.png");
    expect(() => load_brand(config({ logo: huge }))).toThrow("at most 524288 are accepted");
    expect(() => load_brand(config({ favicon: join(dir, "missing.ico") }))).toThrow("brand.favicon (IDP_BRAND_FAVICON): cannot read");
    expect(() => load_brand(config({ logo: fake }))).toThrow(ConfigError);
  });

  test("the colour is validated, and the name defaults to the issuer's host", () => {
    expect(() => load_config({ IDP_BRAND_COLOR: "blue" })).toThrow("brand.color (IDP_BRAND_COLOR): must be a hex colour");
    expect(() => load_config({ IDP_BRAND_COLOR: "#12345" })).toThrow("IDP_BRAND_COLOR");
    expect(load_config({ IDP_BRAND_COLOR: "#1F5FBF" }).brand.color).toBe("#1f5fbf");
    expect(() => load_config({ IDP_BRAND_NAME: "ACME\r\nBcc: everyone@example.com" })).toThrow("brand.name (IDP_BRAND_NAME): must not contain control characters");
    expect(load_brand(load_config({ IDP_ISSUER: "https://id.example.com" })).name).toBe("id.example.com");
  });

  test("every derived colour reads at 4.5:1 where it is used (WCAG 2.2 SC 1.4.3)", () => {
    for (const color of ["#ffcc00", "#ffffff", "#000000", "#1f5fbf", "#0b6e4f", "#e11d48", "#7c3aed", "#808080"]) {
      const c = brand_colors(color);
      // The button's text reads on it (with a mid grey the button is darkened until white does).
      expect({ color, ratio: contrast_ratio(c.brand, c.brand_text) >= 4.5 }).toEqual({ color, ratio: true });
      expect(contrast_ratio(c.brand_hover, c.brand_text)).toBeGreaterThanOrEqual(contrast_ratio(c.brand, c.brand_text));
      for (const bg of ["#ffffff", "#f4f5f7"]) expect(contrast_ratio(c.accent_light, bg)).toBeGreaterThanOrEqual(4.5);
      for (const bg of ["#1c2025", "#121417"]) expect(contrast_ratio(c.accent_dark, bg)).toBeGreaterThanOrEqual(4.5);
    }
    // The operator's colour is kept whenever a text colour reads on it; a mid grey is darkened.
    for (const color of ["#ffcc00", "#1f5fbf", "#0b6e4f", "#e11d48", "#7c3aed", "#ffffff"]) expect(brand_colors(color).brand).toBe(color);
    expect(brand_colors("#808080").brand).not.toBe("#808080");
    expect(brand_colors("#808080").brand_text).toBe("#ffffff");
  });
});

describe("the brand on pages and in mail", () => {
  test("the account page", async () => {
    const browser = new Browser();
    expect((await account_login(t, browser, "alice", t.password)).status).toBe(303);
    const page = await browser.get(`${t.url}/account`);
    expect(page.status).toBe(200);
    expect_brand(await page.text());
  });

  test("a mail: the name in the subject and the body, the colour on its button (real SMTP)", async () => {
    await t.provider.mail.send({ to: "alice@example.com", template: "password_reset", data: { name: "Alice", link: `${t.issuer}/account/reset?token=x`, expires_minutes: 30 } });
    const mail = await smtp.wait_for("alice@example.com", (m) => m.subject.includes("Reset your password"));
    expect(mail.subject).toBe(`Reset your password for ${BRAND}`);
    expect(mail.text).toContain(`your ${BRAND} account`);
    expect(mail.html).toContain("ACME &lt;Corp&gt;");
    expect(mail.html).toContain(`background:${COLOR};color:#1b1f24;`);
    // The issuer is http here: no logo (it would be fetched without TLS by the reader's mail client).
    expect(mail.html).not.toContain("/static/brand/logo");
  });

  test("an https issuer's mail shows the logo by its absolute URL; an SVG logo never", () => {
    const png = load_config({}, { issuer: "https://id.example.com", brand: { logo: join(dir, "logo.png") } });
    const html = new MailRenderer(load_mail_templates(), png.issuer, load_brand(png)).render({ to: "a@example.com", template: "test", data: {} }).html;
    expect(html).toMatch(/<img src="https:\/\/id\.example\.com\/static\/brand\/logo\.png\?v=[A-Za-z0-9_-]+" alt="" height="32"/);
    const svg = load_config({}, { issuer: "https://id.example.com", brand: { logo: join(dir, "favicon.svg") } });
    expect(new MailRenderer(load_mail_templates(), svg.issuer, load_brand(svg)).render({ to: "a@example.com", template: "test", data: {} }).html).not.toContain("<img");
  });
});

describe("the client on the consent page", () => {
  test("https logo and links shown, escaped; the logo's origin alone joins img-src", async () => {
    const { client } = await t.add_client({
      client_name: `<img src=x onerror=alert(1)>"Photos"`,
      logo_uri: "https://cdn.rp.example.com/logo.png?size=64&v=2",
      policy_uri: "https://rp.example.com/privacy",
      tos_uri: "https://rp.example.com/terms",
    });
    const { response, html } = await open_consent(new Browser(), client.client_id);
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;&quot;Photos&quot;");
    expect(html).toContain('<img class="logo" src="https://cdn.rp.example.com/logo.png?size=64&amp;v=2" alt=""');
    expect(html).toContain('<a href="https://rp.example.com/privacy" rel="noopener noreferrer">');
    expect(html).toContain('<a href="https://rp.example.com/terms" rel="noopener noreferrer">');
    // The header keeps the operator's logo: the client's is only the consent card's.
    expect_brand(html);
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toContain("img-src 'self' data: https://cdn.rp.example.com;");
    expect(csp).not.toContain("https:;");
  });

  test("http, javascript: and data: URIs are not shown, and img-src stays our own", async () => {
    const { client } = await t.add_client({
      client_name: "Legacy",
      logo_uri: "http://rp.example.com/logo.png",
      policy_uri: "javascript:alert(1)",
      tos_uri: "data:text/html,<script>alert(1)</script>",
      client_uri: "http://localhost:8080/",
    });
    const { response, html } = await open_consent(new Browser(), client.client_id);
    expect(html).not.toContain('class="logo"');
    expect(html).not.toContain("rp.example.com/logo.png");
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("data:text");
    expect(html).not.toContain("localhost:8080");
    expect(response.headers.get("content-security-policy")).toContain("img-src 'self' data:;");
  });
});

describe("accessibility with the brand colour", () => {
  test.skipIf(!chromium_available)(
    "the themed sign-in page and the consent page: axe clean in light and dark",
    async () => {
      const context = await chromium!.newContext({ bypassCSP: true, reducedMotion: "reduce" });
      try {
        const page = await context.newPage();
        const p = pkce();
        const { client } = await t.add_client({ client_name: "Photo Book", policy_uri: "https://rp.example.com/privacy" });
        await page.goto(authorization_url(t, { scope: "openid email", code_challenge: p.challenge, code_challenge_method: "S256" }, client.client_id));
        await page.waitForSelector("h1");
        expect(await page.textContent("h1")).toBe(`Welcome to ${BRAND}`);
        const problems = async (name: string) => {
          for (const scheme of ["light", "dark"] as const) {
            await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
            expect({ page: name, scheme, problems: serious(await axe(page)) }).toEqual({ page: name, scheme, problems: [] });
          }
          await page.emulateMedia({ colorScheme: "light", reducedMotion: "reduce" });
        };
        // The brand's stylesheet is applied: the primary button is the brand colour with dark text.
        const button = await page.$eval("button.primary", (el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
        expect(button).toEqual(["rgb(255, 204, 0)", "rgb(27, 31, 36)"]);
        await problems("themed login");
        await page.getByLabel("Username").fill("alice");
        await page.getByLabel("Password").fill(t.password);
        await page.locator("button.primary").click();
        await page.waitForURL(/\/consent$/);
        await problems("consent");
      } finally {
        await context.close();
      }
    },
    60_000,
  );
});
