/**
 * The RFC 9700 (OAuth 2.0 Security Best Current Practice) items SECURITY.md lists that no other
 * suite proves on its own: protections on EVERY page (not one sample), CORS only where it belongs,
 * HSTS only for an https issuer, no implicit or hybrid response types, 303 after every form POST,
 * no open redirect through any page, `iss` in successful authorization responses, and (README,
 * Pages) no external fonts or scripts.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { new_totp_secret } from "../../src/oidc/signin/totp.ts";
import { Browser, account_login, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, get_code, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
const BYE = "https://rp.example.com/bye";
beforeAll(async () => {
  t = await start_provider({ config: { login_throttle: { max_failures: 2, delay_ms: 0 } } });
  await t.store.update_client(t.client.client_id, { metadata: { ...t.client.metadata, post_logout_redirect_uris: [BYE] } });
  await t.add_user({ username: "otto", totp_secret: new_totp_secret(), totp_enabled_at: 1 });
  await t.add_user({ username: "locked" });
  await t.add_user({ username: "poster" });
});
afterAll(() => t.stop());

const challenge = () => {
  const p = pkce();
  return { code_challenge: p.challenge, code_challenge_method: "S256" };
};
const next = (browser: Browser, response: Response) => browser.get(new URL(response.headers.get("location")!, t.url).href);

type Page = { name: string; response: Response; html: string };

/** Visits every kind of HTML page the provider serves, as a browser would reach it. */
async function every_page(): Promise<Page[]> {
  const pages: Page[] = [];
  const keep = async (name: string, response: Response) => {
    pages.push({ name, response, html: await response.clone().text() });
    return response;
  };
  const b = new Browser();
  const login = await keep("login", await next(b, await b.get(authorization_url(t, challenge()))));
  let html = await login.text();
  await keep("login with an error", await b.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "alice", password: "wrong" }));
  const consent = await keep("consent", await next(b, await b.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "alice", password: t.password })));
  html = await consent.text();
  await keep("consent without a decision (400)", await b.post(form_action(html)!, { csrf: hidden_field(html, "csrf")! }));
  const { browser: granted } = await get_code(t);
  await keep("form_post", await granted.get(authorization_url(t, { ...challenge(), response_mode: "form_post" })));
  await keep("authorize error page", await b.get(authorization_url(t, { redirect_uri: "https://evil.example/cb" })));
  await keep("404 page", await b.get(`${t.url}/no-such-page`));
  await keep("405 page", await b.request("DELETE", `${t.url}/authorize`));
  await keep("logout confirmation", await b.get(`${t.url}/logout`));
  await keep("logout error page", await b.get(`${t.url}/logout?client_id=${t.client.client_id}&post_logout_redirect_uri=https://evil.example/`));
  const o = new Browser();
  const otto = await (await next(o, await o.get(authorization_url(t, challenge())))).text();
  await keep("two-factor", await next(o, await o.post(form_action(otto)!, { csrf: hidden_field(otto, "csrf")!, username: "otto", password: t.password })));
  const a = new Browser();
  await keep("account sign-in", await a.get(`${t.url}/account/login`));
  await account_login(t, a, "alice", t.password);
  await keep("account", await a.get(`${t.url}/account`));
  await keep("account two-step set-up", await a.get(`${t.url}/account/totp`));
  const confirm = await (await a.get(`${t.url}/logout`)).text();
  await keep(
    "signed out",
    await a.post(form_action(confirm)!, { csrf: hidden_field(confirm, "csrf")!, decision: "logout", client_id: "", post_logout_redirect_uri: "", state: "" }),
  );
  const l = new Browser();
  const locked = await (await next(l, await l.get(authorization_url(t, challenge())))).text();
  for (let i = 0; i < 2; i++) await l.post(form_action(locked)!, { csrf: hidden_field(locked, "csrf")!, username: "locked", password: "wrong" });
  await keep("429 page", await l.post(form_action(locked)!, { csrf: hidden_field(locked, "csrf")!, username: "locked", password: "wrong" }));
  await keep("414 page", await b.get(`${t.url}/authorize?x=${"a".repeat(9000)}`));
  await keep("demo callback", await new Browser().get(`${t.url}/demo/callback?code=x&state=y`));
  const f = new Browser();
  const forgot = await (await keep("forgot password", await f.get(`${t.url}/password/forgot`))).text();
  await keep("forgot password sent", await f.post(`${t.url}/password/forgot`, { csrf: hidden_field(forgot, "csrf")!, identifier: "nobody" }));
  await keep("reset link that does not work", await f.get(`${t.url}/password/reset?token=${"A".repeat(43)}`));
  await t.add_user({ username: "pending", status: "unverified", email: "pending@example.com" });
  const status = await (await f.get(`${t.url}/account/login`)).text();
  await keep("account not active", await f.post(`${t.url}/account/login`, { csrf: hidden_field(status, "csrf")!, username: "pending", password: t.password }));
  return pages.filter((page) => page.response.headers.get("content-type")?.startsWith("text/html"));
}

let pages: Page[];
beforeAll(async () => {
  pages = await every_page();
});

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

describe("every HTML page", () => {
  test("the sweep reached every kind of page", () => {
    expect(pages.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        "login",
        "consent",
        "form_post",
        "two-factor",
        "logout confirmation",
        "signed out",
        "account",
        "429 page",
        "414 page",
        "404 page",
        "authorize error page",
      ]),
    );
    expect(pages.length).toBeGreaterThanOrEqual(17);
  });

  test("clickjacking: X-Frame-Options DENY and CSP frame-ancestors 'none' (RFC 9700 §4.16)", () => {
    for (const { name, response } of pages) {
      expect([name, response.headers.get("x-frame-options")]).toEqual([name, "DENY"]);
      expect([name, directives(response.headers.get("content-security-policy") ?? "").get("frame-ancestors")]).toEqual([name, ["'none'"]]);
    }
  });

  test("a strict CSP: default-src 'none', no unsafe-inline or unsafe-eval, and only hashed inline scripts that match", () => {
    for (const { name, response, html } of pages) {
      const csp = directives(response.headers.get("content-security-policy") ?? "");
      expect([name, csp.get("default-src")]).toEqual([name, ["'none'"]]);
      expect([name, csp.get("base-uri")]).toEqual([name, ["'none'"]]);
      const all = [...csp.values()].flat();
      expect([name, all.filter((v) => v.includes("unsafe"))]).toEqual([name, []]);
      const allowed = new Set(csp.get("script-src") ?? []);
      for (const source of allowed) expect([name, source]).toEqual([name, expect.stringMatching(/^'self'$|^'sha256-[A-Za-z0-9+/]+=*'$/)]);
      // Script files only on the pages whose CSP allows 'self' (the passkey pages), only our own.
      const files = [...html.matchAll(/<script[^>]*\ssrc="([^"]*)"/gi)].map((m) => m[1]!);
      expect([name, files.length > 0]).toEqual([name, allowed.has("'self'")]);
      expect([name, files.filter((src) => !src.startsWith(`${t.config.issuer}/static/`))]).toEqual([name, []]);
      expect([name, /\son[a-z]+\s*=/i.test(html.replace(/<(pre|code)[\s\S]*?<\/\1>/g, ""))]).toEqual([name, false]);
      for (const [, body] of html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
        const hash = `'sha256-${createHash("sha256").update(body!, "utf8").digest("base64")}'`;
        expect([name, allowed.has(hash)]).toEqual([name, true]);
      }
    }
  });

  test("no external fonts or scripts (README, Pages): same-origin stylesheet only, CSP allows no other origin for them", async () => {
    const own = new URL(t.config.issuer).origin;
    for (const { name, response, html } of pages) {
      const csp = directives(response.headers.get("content-security-policy") ?? "");
      // font-src unset: default-src 'none' forbids every font, including other origins'.
      expect([name, csp.get("font-src"), csp.get("style-src")]).toEqual([name, undefined, ["'self'"]]);
      const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]*)"/gi)].map((m) => new URL(m[1]!, own).origin);
      expect([name, scripts.filter((origin) => origin !== own)]).toEqual([name, []]);
      const links = [...html.matchAll(/<link\b[^>]*\bhref="([^"]*)"/gi)].map((m) => m[1]!);
      expect([name, links.filter((href) => new URL(href, own).origin !== own)]).toEqual([name, []]);
      expect([name, /@import|url\(\s*["']?(https?:)?\/\//i.test(html)]).toEqual([name, false]);
    }
    const css = readFileSync(new URL("../../static/style.css", import.meta.url), "utf8");
    expect(css).not.toMatch(/@import|@font-face|url\(\s*["']?(https?:)?\/\//i);
  });

  test("Referrer-Policy no-referrer, nosniff, no-store, and no CORS", () => {
    for (const { name, response } of pages) {
      const h = (header: string) => response.headers.get(header);
      expect([name, h("referrer-policy"), h("x-content-type-options"), h("cache-control"), h("access-control-allow-origin")]).toEqual([
        name,
        "no-referrer",
        "nosniff",
        "no-store",
        null,
      ]);
    }
  });

  test("HSTS only when the issuer is https (tests/http/pages_https.test.ts checks it is sent then)", () => {
    for (const { name, response } of pages) expect([name, response.headers.get("strict-transport-security")]).toEqual([name, null]);
  });
});

describe("CORS (OAuth 2.0 for Browser-Based Apps §6.3)", () => {
  const origin = { origin: "https://spa.example.com" };
  test("allowed on discovery, JWKS, token, userinfo, revoke and introspect — without credentials", async () => {
    for (const [path, init] of [
      ["/.well-known/openid-configuration", {}],
      ["/.well-known/jwks.json", {}],
      ["/token", { method: "POST", body: "grant_type=x", headers: { "content-type": "application/x-www-form-urlencoded" } }],
      ["/userinfo", {}],
      ["/revoke", { method: "POST", body: "token=x", headers: { "content-type": "application/x-www-form-urlencoded" } }],
      ["/introspect", { method: "POST", body: "token=x", headers: { "content-type": "application/x-www-form-urlencoded" } }],
    ] as const) {
      const response = await fetch(`${t.url}${path}`, { ...init, headers: { ...origin, ...("headers" in init ? init.headers : {}) } });
      expect([path, response.headers.get("access-control-allow-origin"), response.headers.get("access-control-allow-credentials")]).toEqual([path, "*", null]);
    }
  });

  test("never on /authorize, the pages, /logout, /account or /register", async () => {
    for (const path of ["/authorize", "/authorize?client_id=test-app", "/logout", "/account", "/account/login", "/interaction/x/login", "/register", "/demo"]) {
      for (const method of ["GET", "OPTIONS", "POST"]) {
        const response = await fetch(`${t.url}${path}`, { method, headers: { ...origin, "access-control-request-method": "POST" }, redirect: "manual" });
        expect([method, path, response.headers.get("access-control-allow-origin")]).toEqual([method, path, null]);
      }
    }
  });
});

describe("the authorization endpoint", () => {
  const redirect_error = async (params: Record<string, string>) => {
    const response = await fetch(authorization_url(t, { ...challenge(), ...params }), { redirect: "manual" });
    return new URL(response.headers.get("location")!).searchParams.get("error");
  };

  test("no access tokens from it: token, id_token token, id_token and hybrid types → unsupported_response_type (RFC 9700 §2.1.2)", async () => {
    for (const response_type of ["token", "id_token token", "id_token", "code id_token", "code token", "code id_token token"]) {
      expect([response_type, await redirect_error({ response_type })]).toEqual([response_type, "unsupported_response_type"]);
    }
  });

  test("successful responses carry iss (RFC 9207), by redirect and by form_post", async () => {
    const { callback } = await get_code(t);
    expect(callback.searchParams.get("iss")).toBe(t.issuer);
    const browser = new Browser();
    await get_code(t, {}, { browser });
    const page = await (await browser.get(authorization_url(t, { ...challenge(), response_mode: "form_post" }))).text();
    expect(hidden_field(page, "iss")).toBe(t.issuer);
    expect(hidden_field(page, "code")).toBeTruthy();
  });
});

test("303 after every form POST, never 307 or 308 (RFC 9700 §4.12)", async () => {
  const statuses: [string, number][] = [];
  const b = new Browser();
  const start = await b.request("POST", `${t.url}/authorize`, { form: Object.fromEntries(new URL(authorization_url(t, challenge())).searchParams) });
  statuses.push(["POST /authorize", start.status]);
  let html = await (await next(b, start)).text();
  const login = await b.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "poster", password: t.password });
  statuses.push(["POST login", login.status]);
  html = await (await next(b, login)).text();
  statuses.push(["POST consent", (await b.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, decision: "allow" })).status]);
  const o = new Browser();
  html = await (await next(o, await o.get(authorization_url(t, challenge())))).text();
  statuses.push(["POST login (password step of two)", (await o.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "otto", password: t.password })).status]);
  const a = new Browser();
  statuses.push(["POST account sign-in", (await account_login(t, a, "alice", t.password)).status]);
  html = await (await a.get(`${t.url}/logout?client_id=${t.client.client_id}&post_logout_redirect_uri=${encodeURIComponent(BYE)}`)).text();
  statuses.push([
    "POST logout confirmation",
    (await a.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, decision: "logout", client_id: t.client.client_id, post_logout_redirect_uri: BYE, state: "" })).status,
  ]);
  expect(statuses).toEqual(statuses.map(([name]) => [name, 303] as [string, number]));
});

test("no open redirect: return-address parameters on every GET page are ignored; only registered URIs are ever targets", async () => {
  const evil = "https://evil.example/steal";
  const names = ["next", "return_to", "returnTo", "redirect", "redirect_url", "url", "continue", "goto", "target", "post_logout_redirect_uri", "redirect_uri"];
  const junk = names.map((n) => `${n}=${encodeURIComponent(evil)}`).join("&");
  const b = new Browser();
  const login = (await b.get(authorization_url(t, challenge()))).headers.get("location")!;
  for (const path of [
    "/",
    "/account",
    "/account/login",
    "/account/totp",
    "/logout",
    "/demo",
    "/demo/callback",
    "/healthz",
    `${new URL(login).pathname}`,
    "/static/style.css",
    "/.well-known/openid-configuration",
  ]) {
    const response = await b.get(`${t.url}${path}?${junk}`);
    const location = response.headers.get("location");
    expect([path, location?.startsWith("https://evil.example") ?? false]).toEqual([path, false]);
  }
  // With a session the flow's own redirects only ever go to the registered redirect URI.
  const { callback } = await get_code(t, { redirect_uri: REDIRECT_URI });
  expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
});
