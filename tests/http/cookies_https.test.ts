/**
 * Cookie names and attributes (oidc/browser/cookies.ts). With an https issuer every cookie of a sign-in
 * (interaction binding, session, the demo's state) is a `__Host-` cookie (RFC 6265bis §4.1.3.2:
 * Secure, Path=/, no Domain), and the flow works when the browser sends them back; a cookie of
 * the plain name is not read there (a sibling subdomain or plain http could have set it). With
 * an http://localhost issuer (development) the names stay plain. In process, no TLS needed.
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { load_config } from "../../src/app/config.ts";
import { create_provider } from "../../src/app/provider.ts";
import { build_app } from "../../src/app/server.ts";
import { seed_demo } from "../../src/oidc/ops/demo.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";
import { Browser, authorize, hidden_field } from "../helpers/browser.ts";

const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

async function start(issuer: string) {
  const store = await open_store("sqlite::memory:");
  stores.push(store);
  const config = load_config(
    {},
    { issuer, database_url: "sqlite::memory:", signing_algs: ["RS256"], log_requests: false, argon2: { memory_kib: 1024, time_cost: 1 }, login_throttle: { delay_ms: 0 } },
  );
  const idp = await create_provider(config, { store, log: () => {} });
  const seed = await seed_demo(idp);
  const app = build_app(idp);
  return { app, password: seed!.password, browser: new Browser((request) => app.fetch(request)) };
}

/** The demo relying party's sign-in (/demo → login → consent → callback), the account page, and sign-out. */
async function full_flow(issuer: string, prefix: string) {
  const { password, browser } = await start(issuer);
  const begin = await browser.get(`${issuer}/demo`);
  expect(begin.status).toBe(302);
  const { callback, steps } = await authorize(browser, begin.headers.get("location")!, { username: "demo", password, callback_prefix: `${issuer}/demo/callback` });
  expect(steps).toEqual(["login", "consent"]);
  const page = await browser.get(callback.href);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("You are signed in to the demo app");
  expect([...browser.cookies.keys()].sort()).toEqual([`${prefix}idp_interaction`, `${prefix}idp_session`]);

  // The session cookie signs the browser in: the account page shows, the sign-out page asks.
  expect((await browser.get(`${issuer}/account`)).status).toBe(200);
  const confirm = await browser.get(`${issuer}/logout`);
  expect(confirm.status).toBe(200);
  const csrf = hidden_field(await confirm.text(), "csrf")!;
  const out = await browser.post(`${issuer}/logout/confirm`, { csrf, decision: "logout" });
  expect(out.status).toBe(200);
  expect(browser.cookies.has(`${prefix}idp_session`)).toBe(false);
  expect((await browser.get(`${issuer}/account`)).status).not.toBe(200);
  return browser;
}

describe("https issuer", () => {
  test("every Set-Cookie of a full sign-in is __Host-…; Secure; Path=/ without Domain, and the flow works with them", async () => {
    const issuer = "https://id.example.com";
    const browser = await full_flow(issuer, "__Host-");
    const names = new Set(browser.set_cookies.map((line) => line.slice(0, line.indexOf("="))));
    expect([...names].sort()).toEqual(["__Host-idp_demo", "__Host-idp_interaction", "__Host-idp_session"]);
    for (const line of browser.set_cookies) {
      const attributes = line
        .split(";")
        .slice(1)
        .map((a) => a.trim().toLowerCase());
      expect({
        line,
        secure: attributes.includes("secure"),
        path: attributes.filter((a) => a.startsWith("path=")),
        domain: attributes.filter((a) => a.startsWith("domain=")),
      }).toEqual({
        line,
        secure: true,
        path: ["path=/"],
        domain: [],
      });
    }
  });

  test("a cookie of the plain name is not read: only the __Host- cookie signs a browser in", async () => {
    const issuer = "https://id.example.com";
    const { app, password, browser } = await start(issuer);
    const begin = await browser.get(`${issuer}/demo`);
    await authorize(browser, begin.headers.get("location")!, { username: "demo", password, callback_prefix: `${issuer}/demo/callback` });
    const session = browser.cookies.get("__Host-idp_session")!;
    const account = (cookie: string) => app.fetch(new Request(`${issuer}/account`, { headers: { cookie, accept: "text/html" } }));
    expect((await account(`__Host-idp_session=${session}`)).status).toBe(200);
    expect((await account(`idp_session=${session}`)).status).not.toBe(200);
  });
});

describe("http://localhost issuer (development)", () => {
  test("the names stay plain and are not Secure; the demo cookie keeps Path=/demo", async () => {
    const issuer = "http://localhost:8080";
    const browser = await full_flow(issuer, "");
    const names = new Set(browser.set_cookies.map((line) => line.slice(0, line.indexOf("="))));
    expect([...names].sort()).toEqual(["idp_demo", "idp_interaction", "idp_session"]);
    for (const line of browser.set_cookies) expect(line.toLowerCase()).not.toContain("secure");
    expect(browser.set_cookies.find((line) => line.startsWith("idp_demo="))).toContain("Path=/demo");
  });
});
