/**
 * Applications outside the cookie domain (oidc/forward_auth/callback.ts), over real HTTP, the test
 * playing the proxy: the start step hands the browser a one-time code for the application's own
 * callback; the callback (forwarded by the proxy) exchanges it for a host-only cookie and sends the
 * browser back to the URL it came for; the check accepts that cookie at that host only. Abuse
 * cases: a code used twice, at another host, after it expired, after a sign-out, malformed; a
 * callback from a peer that is not a trusted proxy; the domain cookie never set for such an
 * application; sign-out ending the host-only cookie's access.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { create_app } from "../../src/oidc/admin/apps.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { Browser, account_login, form_action, hidden_field } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const WIKI = "http://wiki.other.test:8080";
const MAIL = "https://mail.other.test";
let t: TestProvider;

beforeAll(async () => {
  t = await start_provider({ issuer_host: "id.idp.test", config: { trust_proxy: true, trusted_proxies: ["127.0.0.1"], forward_auth: { cookie_domain: "idp.test" } } });
  const now = t.clock.now();
  await create_app(t.store, "wiki", { url: WIKI }, now);
  await create_app(t.store, "mail", { url: MAIL }, now);
  await create_app(t.store, "inside", { url: "http://inside.idp.test:8080" }, now);
});
afterAll(() => t?.stop());

const here = (url: string) => url.replace(t.issuer, t.url);
const start_for = (target: string) => `${t.issuer}/forward-auth/start?rd=${encodeURIComponent(target)}`;

/** The proxy's headers for a request to `url` (Caddy and Traefik's, or nginx's X-Original-URL). */
function proxied(url: string, nginx = false): Record<string, string> {
  const u = new URL(url);
  return nginx ? { "x-original-url": url } : { "x-forwarded-proto": u.protocol.slice(0, -1), "x-forwarded-host": u.host, "x-forwarded-uri": `${u.pathname}${u.search}` };
}

/** The check for `url` with the browser's cookie header. */
async function ask(url: string, cookie: string | null): Promise<Response> {
  return fetch(`${t.url}/forward-auth`, { headers: { ...proxied(url), ...(cookie === null ? {} : { cookie }) }, redirect: "manual" });
}

/** The proxy forwarding `callback` (the application's /.idp/callback URL) to the provider. */
async function forward_callback(callback: string, options: { nginx?: boolean; as?: string } = {}): Promise<Response> {
  const code = new URL(callback).searchParams.get("code") ?? "";
  const url = `${t.url}/forward-auth/callback?code=${encodeURIComponent(code)}${options.nginx ? "&mode=nginx" : ""}`;
  return fetch(url, { headers: { ...proxied(options.as ?? callback, options.nginx), accept: "text/html" }, redirect: "manual" });
}

/** Signs `username` in through the start step for `target`; the callback URL the start step sends the browser to. */
async function sign_in_for(target: string, username = "alice", browser = new Browser()): Promise<{ browser: Browser; callback: string }> {
  expect((await browser.get(here(start_for(target)))).status).toBe(302);
  expect((await account_login(t, browser, username, t.password)).status).toBe(303);
  const back = await browser.get(here(start_for(target)), { "sec-fetch-site": "cross-site" });
  expect(back.status).toBe(302);
  // No domain cookie for an application that would never receive it.
  expect(back.headers.getSetCookie().some((line) => line.startsWith("idp_forward_auth="))).toBe(false);
  return { browser, callback: back.headers.get("location")! };
}

/** A Set-Cookie line's attributes, sorted (no Domain among them: host-only); Max-Age as "Max-Age=session" when it is the session's remaining lifetime (14 days, a few seconds spent). */
const attributes = (line: string) =>
  line
    .split("; ")
    .slice(1)
    .map((a) => (/^Max-Age=\d+$/.test(a) && Math.abs(Number(a.slice(8)) - 1_209_600) <= 5 ? "Max-Age=session" : a))
    .sort();

const host_cookie = (response: Response, name = "idp_forward_auth_host") => response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`)) ?? null;

describe("an application outside the cookie domain", () => {
  test("not signed in: the check sends the browser to the start step, as for any application", async () => {
    const asked = await ask(`${WIKI}/page`, null);
    expect(asked.status).toBe(302);
    expect(asked.headers.get("location")).toBe(start_for(`${WIKI}/page`));
  });

  test("the start step sends a signed-in browser to the application's callback with a one-time code; the callback sets a host-only cookie and returns", async () => {
    const target = `${WIKI}/docs/page?q=1&r=a%2Fb`;
    const { callback } = await sign_in_for(target);
    expect(callback).toMatch(/^http:\/\/wiki\.other\.test:8080\/\.idp\/callback\?code=[A-Za-z0-9_-]{43}$/);
    const code = new URL(callback).searchParams.get("code")!;
    // Kept hashed: the code itself is no key of the store.
    expect(await t.store.take_forward_auth_code(code, t.clock.now())).toBeNull();
    const answer = await forward_callback(callback);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(target);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
    const cookie = host_cookie(answer)!;
    // Host-only: no Domain attribute. (Secure too on an https application, below.)
    expect(attributes(cookie)).toEqual(["Path=/", "Max-Age=session", "HttpOnly", "SameSite=Lax"].sort());
    expect(cookie).toMatch(/^idp_forward_auth_host=[A-Za-z0-9_-]{43};/);
    const value = cookie.slice(cookie.indexOf("=") + 1, cookie.indexOf(";"));
    const allowed = await ask(target, `idp_forward_auth_host=${value}`);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("remote-user")).toBe("alice");
    // That host only: not another application's host, and not as the domain cookie.
    expect((await ask(`${MAIL}/inbox`, `__Host-idp_forward_auth=${value}; idp_forward_auth_host=${value}`)).status).toBe(302);
    expect((await ask("http://inside.idp.test:8080/", `idp_forward_auth=${value}`)).status).toBe(302);
    // Used once.
    const again = await forward_callback(callback);
    expect(again.status).toBe(400);
    expect(host_cookie(again)).toBeNull();
    expect(await again.text()).toContain("This sign-in link was used already, has expired, or is not for this address.");
  });

  test("an https application gets a Secure __Host- cookie; nginx's X-Original-URL works as well", async () => {
    const { callback } = await sign_in_for(`${MAIL}/inbox`);
    const answer = await forward_callback(callback, { nginx: true });
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(`${MAIL}/inbox`);
    const cookie = host_cookie(answer, "__Host-idp_forward_auth")!;
    expect(attributes(cookie)).toEqual(["Path=/", "Max-Age=session", "Secure", "HttpOnly", "SameSite=Lax"].sort());
    const value = cookie.slice(cookie.indexOf("=") + 1, cookie.indexOf(";"));
    expect((await ask(`${MAIL}/inbox`, `__Host-idp_forward_auth=${value}`)).headers.get("remote-user")).toBe("alice");
  });

  test("a code is refused at another host (and spent), after it expired, or malformed", async () => {
    const first = await sign_in_for(`${WIKI}/a`);
    expect((await forward_callback(first.callback, { as: `${MAIL}/.idp/callback` })).status).toBe(400);
    expect((await forward_callback(first.callback)).status).toBe(400);

    const second = await sign_in_for(`${WIKI}/b`);
    t.clock.advance(61);
    try {
      expect((await forward_callback(second.callback)).status).toBe(400);
    } finally {
      t.clock.advance(-61);
    }
    for (const code of ["", "short", "x".repeat(43), `${"a".repeat(42)}!`]) {
      const answer = await fetch(`${t.url}/forward-auth/callback?code=${encodeURIComponent(code)}`, { headers: proxied(`${WIKI}/.idp/callback`), redirect: "manual" });
      expect(answer.status).toBe(400);
      expect(answer.headers.getSetCookie()).toEqual([]);
    }
  });

  test("the code is bound to its session: after a sign-out it opens nothing, and a sign-out ends the host-only cookie's access", async () => {
    const { browser, callback } = await sign_in_for(`${WIKI}/x`, "alice");
    const answer = await forward_callback(callback);
    const cookie = host_cookie(answer)!;
    const value = cookie.slice(cookie.indexOf("=") + 1, cookie.indexOf(";"));
    const pending = await browser.get(here(start_for(`${WIKI}/y`)), { "sec-fetch-site": "cross-site" });
    const unused = pending.headers.get("location")!;
    expect((await ask(`${WIKI}/x`, `idp_forward_auth_host=${value}`)).status).toBe(200);
    const confirm = await browser.get(`${t.url}/logout`);
    const html = await confirm.text();
    expect((await browser.post(here(form_action(html)!), { csrf: hidden_field(html, "csrf")!, decision: "logout" })).status).toBeLessThan(400);
    expect((await ask(`${WIKI}/x`, `idp_forward_auth_host=${value}`)).status).toBe(302);
    expect((await forward_callback(unused)).status).toBe(400);
    expect(await t.store.take_forward_auth_code(sha256(new URL(unused).searchParams.get("code")!), t.clock.now())).toBeNull();
  });
});

describe("who may forward a callback", () => {
  let strict: TestProvider;
  beforeAll(async () => {
    strict = await start_provider({ issuer_host: "id.idp.test", config: { trust_proxy: true, trusted_proxies: ["10.0.0.1"], forward_auth: { cookie_domain: "idp.test" } } });
  });
  afterAll(() => strict?.stop());

  test("a peer that is not a trusted proxy is refused before the code is looked at", async () => {
    const answer = await fetch(`${strict.url}/forward-auth/callback?code=${"a".repeat(43)}`, { headers: proxied(`${WIKI}/.idp/callback`), redirect: "manual" });
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("IDP_TRUSTED_PROXIES");
  });
});
