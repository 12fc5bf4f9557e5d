/**
 * GET /forward-auth and /forward-auth/start over real HTTP, the test playing the reverse proxy
 * (X-Forwarded-* or X-Original-URL, and the browser's domain cookie): the 302 (Caddy, Traefik)
 * and 401 (nginx) to the start step, the sign-in that comes back to the original URL, the
 * Remote-* headers, 403 outside the groups, rules per path prefix (longest wins, decoded paths),
 * a second factor asked for by step up, sign-out ending access at once, no redirect to a host a
 * header named, untrusted peers and missing settings refused with a log line, the audit (a
 * session's first access once, refusals) and the metrics counter.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { request as http_request } from "node:http";
import { create_app } from "../../src/oidc/admin/apps.ts";
import { totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { Browser, account_login, form_action, hidden_field } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { rejection } from "../helpers/settle.ts";

const TOKEN = "metrics-token-for-forward-auth";
const APP = "http://app.idp.test:8080";
const lines: Record<string, unknown>[] = [];
let t: TestProvider;

beforeAll(async () => {
  t = await start_provider({
    issuer_host: "id.idp.test",
    log: (line) => void lines.push(line),
    config: { trust_proxy: true, trusted_proxies: ["127.0.0.1"], forward_auth: { cookie_domain: "idp.test" }, metrics_token: TOKEN },
  });
  const admins = await t.store.create_group({ name: "admins" });
  const staff = await t.store.create_group({ name: "staff" });
  await t.store.add_group_member(admins.id, t.user.id);
  await t.store.add_group_member(staff.id, t.user.id);
  await t.add_user({ username: "bob", name: "Bob", email: "bob@example.com", email_verified: false });
  await t.add_user({ username: "zoe", name: "Zoë Ünal", email: "zoe@example.com", email_verified: true });
  await t.add_user({ username: "dave-no-factor" });
  const now = t.clock.now();
  await create_app(t.store, "wiki", { url: APP, allowed_groups: ["staff", "admins"], rules: ["/admin=admins+2fa", "/public=*"] }, now);
  await create_app(t.store, "open", { url: "http://open.idp.test:8080" }, now);
  await create_app(t.store, "mfa", { url: "http://mfa.idp.test:8080", require_2fa: true }, now);
});
afterAll(() => t.stop());

/** A URL of the issuer, as the test reaches it (the issuer's host is a name only the browser tests resolve). */
const here = (url: string) => url.replace(t.issuer, t.url);

type Asked = { status: number; headers: Headers; text: string };

/** The proxy's question about `url` for the browser holding `fa` (its forward-auth cookie, or none). */
async function ask(url: string, fa: string | null, options: { mode?: "nginx"; method?: string; accept?: string; extra?: Record<string, string> } = {}): Promise<Asked> {
  const target = new URL(url);
  const headers: Record<string, string> =
    options.mode === "nginx"
      ? { "x-original-url": url, "x-original-method": options.method ?? "GET" }
      : {
          "x-forwarded-proto": target.protocol.slice(0, -1),
          "x-forwarded-host": target.host,
          "x-forwarded-uri": `${target.pathname}${target.search}`,
          "x-forwarded-method": options.method ?? "GET",
        };
  headers.accept = options.accept ?? "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8";
  if (fa !== null) headers.cookie = `idp_forward_auth=${fa}`;
  const response = await fetch(`${t.url}/forward-auth${options.mode === "nginx" ? "?mode=nginx" : ""}`, { headers: { ...headers, ...options.extra }, redirect: "manual" });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The start step's URL for `target`, as the check names it. */
const start_for = (target: string) => `${t.issuer}/forward-auth/start?rd=${encodeURIComponent(target)}`;

/**
 * A browser walking from the proxy's redirect to the start step, through the account's sign-in,
 * back to `target`; returns the browser and its forward-auth cookie.
 */
async function sign_in_through(target: string, username = "alice", browser = new Browser()): Promise<{ browser: Browser; fa: string }> {
  const first = await browser.get(here(start_for(target)));
  expect(first.status).toBe(302);
  expect(first.headers.get("location")).toBe(`${t.issuer}/account/login`);
  const login = await account_login(t, browser, username, t.password);
  expect(login.status).toBe(303);
  expect(login.headers.get("location")).toBe(start_for(target));
  // Right after the sign-in form, a page that moves on by itself (a redirect would end the form's
  // navigation at another origin, which the sign-in page's CSP form-action refuses).
  const back = await browser.get(here(start_for(target)));
  expect(back.status).toBe(200);
  const page = await back.text();
  expect(page).toContain(`<meta http-equiv="refresh" content="0;url=${target.replaceAll("&", "&amp;")}">`);
  expect(page).toContain(`href="${target.replaceAll("&", "&amp;")}"`);
  const cookie = back.headers.getSetCookie().find((line) => line.startsWith("idp_forward_auth="))!;
  expect(cookie).toMatch(/; Domain=idp\.test; Path=\/; .*HttpOnly; SameSite=Lax/);
  return { browser, fa: browser.cookies.get("idp_forward_auth")! };
}

function sample(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
}

async function counter(outcome: string): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  return sample(text, `idp_forward_auth_checks_total{outcome="${outcome}"}`);
}

describe("not signed in", () => {
  test("Caddy and Traefik get a 302 to the start step with the original URL; nginx and non-GET requests a 401 with it in Location", async () => {
    const before = await counter("sign_in");
    const url = `${APP}/docs/page?q=1&r=a%2Fb`;
    const redirected = await ask(url, null);
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get("location")).toBe(start_for(url));
    expect(redirected.headers.get("cache-control")).toBe("no-store");
    const nginx = await ask(url, null, { mode: "nginx" });
    expect(nginx.status).toBe(401);
    expect(nginx.headers.get("location")).toBe(start_for(url));
    const post = await ask(url, null, { method: "POST" });
    expect(post.status).toBe(401);
    // A cookie that stands for nothing is no session.
    expect((await ask(url, "x".repeat(43))).status).toBe(302);
    expect(await counter("sign_in")).toBe(before + 4);
  });

  test("the sign-in comes back to the original URL with the domain cookie, and the proxy then gets the user's headers", async () => {
    const url = `${APP}/docs/page?q=1`;
    const { fa } = await sign_in_through(url);
    const allowed = await ask(url, fa);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("remote-user")).toBe("alice");
    expect(allowed.headers.get("remote-email")).toBe("alice@example.com");
    expect(allowed.headers.get("remote-name")).toBe("Alice Liddell");
    expect(allowed.headers.get("remote-groups")).toBe("admins,staff");
    expect(allowed.headers.get("cache-control")).toBe("no-store");
    expect((await ask(url, fa, { mode: "nginx" })).status).toBe(200);
  });

  test("a signed-in browser goes straight back, with a cookie for its session; the provider's own session cookie opens nothing at the proxy", async () => {
    const browser = new Browser();
    const { fa } = await sign_in_through(`${APP}/`, "alice", browser);
    // Come from the application (Fetch Metadata: same-site, not same-origin): a plain redirect.
    const again = await browser.get(here(start_for(`${APP}/other`)), { "sec-fetch-site": "same-site" });
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toBe(`${APP}/other`);
    // Already this session's: no new cookie.
    expect(again.headers.getSetCookie().some((line) => line.startsWith("idp_forward_auth="))).toBe(false);
    const session = browser.cookies.get("idp_session")!;
    const asked = await fetch(`${t.url}/forward-auth`, {
      headers: { "x-forwarded-proto": "http", "x-forwarded-host": "app.idp.test:8080", "x-forwarded-uri": "/", cookie: `idp_session=${session}` },
      redirect: "manual",
    });
    expect(asked.status).toBe(302);
    expect((await ask(`${APP}/`, fa)).status).toBe(200);
  });
});

describe("headers", () => {
  test("every header is sent, empty when unknown: an unverified e-mail address is not passed on; a UTF-8 name arrives as UTF-8", async () => {
    const { fa: bob } = await sign_in_through("http://open.idp.test:8080/", "bob");
    const answer = await ask("http://open.idp.test:8080/", bob);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("remote-user")).toBe("bob");
    expect(answer.headers.has("remote-email")).toBe(true);
    expect(answer.headers.get("remote-email")).toBe("");
    expect(answer.headers.get("remote-groups")).toBe("");
    const { fa: zoe } = await sign_in_through("http://open.idp.test:8080/", "zoe");
    const raw = await raw_get(`${t.url}/forward-auth`, {
      "x-forwarded-proto": "http",
      "x-forwarded-host": "open.idp.test:8080",
      "x-forwarded-uri": "/",
      cookie: `idp_forward_auth=${zoe}`,
    });
    expect(raw.status).toBe(200);
    expect(Buffer.from(raw.headers["remote-name"] as string, "latin1").toString("utf8")).toBe("Zoë Ünal");
  });
});

describe("groups and rules", () => {
  test("a user outside the application's groups gets 403: a page for browsers at the application's address, the start step's page with nginx; audited once", async () => {
    const { fa, browser } = await sign_in_through_any("bob");
    const url = `${APP}/docs`;
    const denied = await ask(url, fa);
    expect(denied.status).toBe(403);
    expect(denied.text).toContain("No access to this application");
    expect(denied.text).toContain("You are signed in as bob");
    expect(denied.text).toContain(`href="${t.issuer}/static/style.css"`);
    expect(denied.headers.get("content-security-policy")).toContain(`style-src ${t.issuer}`);
    expect(denied.headers.get("location")).toBeNull();
    expect((await ask(url, fa, { accept: "application/json" })).text).toContain("your account is not in a group allowed to open wiki");
    const nginx = await ask(url, fa, { mode: "nginx" });
    expect(nginx.status).toBe(403);
    expect(nginx.headers.get("location")).toBe(start_for(url));
    const page = await browser.get(here(start_for(url)));
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("No access to this application");
    const bob = (await t.store.get_user_by_username("bob"))!;
    const events = (await t.store.list_audit_events({ type: "access_denied", user_id: bob.id })).filter((e) => e.details?.app === "wiki");
    expect(events.length).toBe(1);
    expect(events[0]!.details).toMatchObject({ reason: "groups", stage: "forward_auth", app: "wiki" });
  });

  test("the longest prefix wins: /public is open to any signed-in user, /admin needs admins and a second factor; decoded and dot-segment paths cannot slip past", async () => {
    const { fa } = await sign_in_through_any("bob");
    expect((await ask(`${APP}/public/readme`, fa)).status).toBe(200);
    expect((await ask(`${APP}/public`, fa)).status).toBe(200);
    expect((await ask(`${APP}/publicity`, fa)).status).toBe(403);
    for (const path of ["/public/../admin", "/public/%2e%2e/admin", "/public%2F..%2Fadmin/x", "//admin", "/public/..%5Cadmin", "/%61dmin"]) {
      const answer = await ask(`${APP}${path}`, fa);
      expect({ path, status: answer.status }).toEqual({ path, status: 403 });
    }
    // A backend that ignores case: /PUBLIC meets the app's groups too, never less.
    expect((await ask(`${APP}/PUBLIC/readme`, fa)).status).toBe(403);
    // alice is in admins, but signed in with a password only: the second factor is asked for.
    const { fa: alice } = await sign_in_through_any("alice");
    expect((await ask(`${APP}/docs`, alice)).status).toBe(200);
    const admin = await ask(`${APP}/admin/users`, alice);
    expect(admin.status).toBe(302);
    expect(admin.headers.get("location")).toBe(start_for(`${APP}/admin/users`));
  });

  test("rules and groups apply at the next request after a change", async () => {
    const { fa } = await sign_in_through_any("bob");
    expect((await ask("http://open.idp.test:8080/x", fa)).status).toBe(200);
    await t.store.update_protected_app("open", { allowed_groups: ["admins"] });
    expect((await ask("http://open.idp.test:8080/x", fa)).status).toBe(403);
    await t.store.update_protected_app("open", { allowed_groups: [] });
  });
});

/** A signed-in browser of `username` (through the open application) and its cookie. */
function sign_in_through_any(username: string) {
  return sign_in_through("http://open.idp.test:8080/", username);
}

describe("a second factor (--require-2fa)", () => {
  test("a session without one is sent to the two-factor page (a step up), then back with a new cookie", async () => {
    const user = await t.add_user({ username: "carol" });
    const browser = new Browser();
    await account_login(t, browser, "carol", t.password);
    // carol turns on an authenticator app: this session stays a password-only one.
    const setup = await browser.get(`${t.url}/account/totp`);
    const html = await setup.text();
    const secret = /<code class="secret" id="secret">([A-Z2-7 ]+)<\/code>/.exec(html)![1]!.replaceAll(" ", "");
    const enabled = await browser.post(`${t.url}/account/totp`, { csrf: hidden_field(html, "csrf")!, action: "enable", code: totp_code(secret, totp_step(t.clock.now())) });
    expect(enabled.status).toBe(200);
    t.clock.advance(30);
    const target = "http://mfa.idp.test:8080/secret";
    const start = await browser.get(here(start_for(target)));
    expect(start.status).toBe(302);
    const two_factor = start.headers.get("location")!;
    expect(two_factor).toMatch(/\/interaction\/[A-Za-z0-9_-]{43}\/two-factor$/);
    const page = await browser.get(here(two_factor));
    const form = await page.text();
    const done = await browser.post(here(form_action(form)!), { csrf: hidden_field(form, "csrf")!, code: totp_code(secret, totp_step(t.clock.now())) });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(start_for(target));
    const back = await browser.get(here(start_for(target)), { "sec-fetch-site": "cross-site" });
    expect(back.headers.get("location")).toBe(target);
    const fa = browser.cookies.get("idp_forward_auth")!;
    const allowed = await ask(target, fa);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("remote-user")).toBe("carol");
    const sessions = await t.store.list_sessions_for_user(user.id);
    expect(sessions.map((s) => s.amr)).toEqual([["pwd", "otp"]]);
  });
});

describe("a second factor the user does not have yet", () => {
  test("is added at the step up: the two-factor page offers to set one up", async () => {
    const { browser } = await sign_in_through_any("dave-no-factor");
    const start = await browser.get(here(start_for("http://mfa.idp.test:8080/")));
    expect(start.status).toBe(302);
    const page = await browser.get(here(start.headers.get("location")!));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Add a second factor");
    expect(html).toMatch(/\/interaction\/[A-Za-z0-9_-]{43}\/enrol-totp/);
  });
});

describe("sign-out", () => {
  test("ends the applications' access at once", async () => {
    const { fa, browser } = await sign_in_through_any("alice");
    expect((await ask(`${APP}/docs`, fa)).status).toBe(200);
    const confirm = await browser.get(`${t.url}/logout`);
    const html = await confirm.text();
    const out = await browser.post(here(form_action(html)!), { csrf: hidden_field(html, "csrf")!, decision: "logout" });
    expect(out.status).toBeLessThan(400);
    expect((await ask(`${APP}/docs`, fa)).status).toBe(302);
  });
});

describe("first access audit", () => {
  test("a session's first request to an application is audited once, however many follow", async () => {
    const zoe = (await t.store.get_user_by_username("zoe"))!;
    const count = async () => (await t.store.list_audit_events({ type: "protected_app_access", user_id: zoe.id })).filter((e) => e.details?.app === "wiki").length;
    const before = await count();
    const { fa } = await sign_in_through_any("zoe");
    await t.store.add_group_member((await t.store.get_group_by_name("staff"))!.id, zoe.id);
    for (let i = 0; i < 5; i++) expect((await ask(`${APP}/docs/${i}`, fa)).status).toBe(200);
    expect(await count()).toBe(before + 1);
  });
});

describe("no open redirect", () => {
  test("a host no application is registered at gets 403 and no redirect, also with nginx's header; the start step refuses it with a page", async () => {
    const { fa } = await sign_in_through_any("alice");
    const before = await counter("refused");
    const spoofed = await ask("https://evil.example/steal", fa);
    expect(spoofed.status).toBe(403);
    expect(spoofed.headers.get("location")).toBeNull();
    expect(spoofed.text).toContain("not an application registered");
    const nginx = await ask("https://evil.example/steal", fa, { mode: "nginx" });
    expect(nginx.status).toBe(403);
    expect(nginx.headers.get("location")).toBe(`${t.issuer}/forward-auth/start`);
    expect(await counter("refused")).toBe(before + 2);
    expect(lines.some((line) => line.msg === "forward-auth: no registered application" && line.host === "evil.example")).toBe(true);
    const browser = new Browser();
    await account_login(t, browser, "alice", t.password);
    for (const rd of ["https://evil.example/", "http://app.idp.test:8080.evil.example/", "//evil.example/", "javascript:alert(1)", ""]) {
      const page = await browser.get(`${t.url}/forward-auth/start?rd=${encodeURIComponent(rd)}`);
      expect({ rd, status: page.status, location: page.headers.get("location") }).toEqual({ rd, status: 400, location: null });
    }
  });

  test("in the default mode, nginx's X-Original-URL is never read (a client may send it through Caddy)", async () => {
    const asked = await ask(`${APP}/public/x`, null, { extra: { "x-original-url": "https://evil.example/" } });
    expect(asked.headers.get("location")).toBe(start_for(`${APP}/public/x`));
  });

  test("headers that describe no request get 400 and a log line", async () => {
    const bad: Record<string, string>[] = [
      { "x-forwarded-host": "a b" },
      { "x-forwarded-proto": "ftp" },
      { "x-forwarded-uri": "no-slash" },
      { "x-forwarded-host": "app.idp.test:8080, evil.example" },
    ];
    for (const extra of bad) {
      expect((await ask(`${APP}/`, null, { extra })).status).toBe(400);
    }
    expect((await fetch(`${t.url}/forward-auth?mode=nginx`)).status).toBe(400);
    expect((await fetch(`${t.url}/forward-auth?mode=apache`)).status).toBe(400);
    expect(lines.some((line) => line.msg === "forward-auth refused" && String(line.reason).includes("X-Original-URL"))).toBe(true);
  });
});

/** A GET through node:http, from `local` (a loopback address of its own), headers as received. */
function raw_get(
  url: string,
  headers: Record<string, string>,
  local = "127.0.0.1",
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http_request(url, { headers, localAddress: local }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => void (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, text }));
    });
    request.on("error", reject);
    request.end();
  });
}

describe("who may ask", () => {
  test("a peer that is not a trusted proxy is refused with 403 and a log line naming IDP_TRUSTED_PROXIES", async () => {
    const { fa } = await sign_in_through_any("alice");
    const direct = await raw_get(
      `${t.url}/forward-auth`,
      { "x-forwarded-proto": "http", "x-forwarded-host": "app.idp.test:8080", "x-forwarded-uri": "/docs", cookie: `idp_forward_auth=${fa}` },
      "127.0.0.2",
    );
    expect(direct.status).toBe(403);
    expect(direct.text).toContain("is not a trusted proxy (IDP_TRUSTED_PROXIES)");
    expect(direct.headers["remote-user"]).toBeUndefined();
    expect(lines.some((line) => line.msg === "forward-auth refused" && String(line.reason).includes("127.0.0.2"))).toBe(true);
  });

  test("without IDP_TRUST_PROXY, or without a cookie domain, the check answers 500 and logs the setting", async () => {
    for (const config of [{ forward_auth: { cookie_domain: "idp.test" } }, { trust_proxy: true }]) {
      const logged: Record<string, unknown>[] = [];
      const other = await start_provider({ issuer_host: "id.idp.test", config, log: (line) => void logged.push(line) });
      try {
        const answer = await fetch(`${other.url}/forward-auth`, { headers: { "x-forwarded-proto": "http", "x-forwarded-host": "app.idp.test", "x-forwarded-uri": "/" } });
        expect(answer.status).toBe(500);
        const setting = "trust_proxy" in config ? "IDP_FORWARD_AUTH_COOKIE_DOMAIN" : "IDP_TRUST_PROXY";
        expect(await answer.text()).toContain(setting);
        expect(logged.some((line) => line.level === "error" && String(line.reason).includes(setting))).toBe(true);
      } finally {
        await other.stop();
      }
    }
  });

  test("the provider does not start when the issuer's host is not in the cookie domain", async () => {
    expect((await rejection(start_provider({ issuer_host: "id.other.test", config: { forward_auth: { cookie_domain: "idp.test" } } }))).message).toMatch(/is not in idp\.test/);
  });
});
