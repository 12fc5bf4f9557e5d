/**
 * Login throttling (src/oidc/limits/login.ts; OWASP Authentication Cheat Sheet, NIST SP 800-63B
 * §5.2.2): per (address, username) and per address a 429 page with Retry-After; per username a
 * wait before each attempt; fixed windows in the store that always end. Addresses come from
 * X-Forwarded-For (trust_proxy), so one test plays several machines.
 */
import { afterAll, afterEach, beforeAll, describe, expect, RUNTIME, spyOn, test } from "../helpers/test_api.ts";
import { load_config } from "../../src/app/config.ts";
import { create_provider } from "../../src/app/provider.ts";
import { build_app } from "../../src/app/server.ts";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const RULES = { window_seconds: 600, max_failures: 3, max_failures_per_ip: 5, delay_after: 2, delay_ms: 7 };

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { trust_proxy: true, login_throttle: RULES } });
});
afterAll(() => t.stop());

let address = 0;
/** A fresh address per test, so tests do not share counters. */
const next_address = () => `198.51.100.${++address}`;

type LoginPage = { browser: Browser; action: string; csrf: string };

async function login_page(): Promise<LoginPage> {
  const browser = new Browser();
  const p = pkce();
  const start = await browser.get(authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }));
  const html = await (await browser.get(new URL(start.headers.get("location")!, t.url).href)).text();
  return { browser, action: form_action(html)!, csrf: hidden_field(html, "csrf")! };
}

function attempt(page: LoginPage, ip: string, username: string, password: string): Promise<Response> {
  return page.browser.request("POST", page.action, { form: { csrf: page.csrf, username, password }, headers: { "x-forwarded-for": ip } });
}

async function expect_throttled(response: Response): Promise<number> {
  expect(response.status).toBe(429);
  expect(response.headers.get("content-type")).toStartWith("text/html");
  expect(await response.text()).toContain("Too many attempts");
  const retry = Number(response.headers.get("retry-after"));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(RULES.window_seconds);
  return retry;
}

describe("429 limits", () => {
  let user = 0;
  /** A user of its own per test (the username counts are per username). */
  const new_user = async () => (await t.add_user({ username: `user${++user}` })).username;

  test("per address and username: after max_failures even the right password gets 429; the owner's own address is not locked", async () => {
    const name = await new_user();
    const page = await login_page();
    const attacker = next_address();
    for (let i = 0; i < RULES.max_failures; i++) expect((await attempt(page, attacker, name, `guess ${i}`)).status).toBe(200);
    await expect_throttled(await attempt(page, attacker, name, t.password));
    // The user, from their own address, signs in: a username alone is never locked.
    expect((await attempt(await login_page(), next_address(), name, t.password)).status).toBe(303);
  });

  test("per address: max_failures_per_ip failures over any usernames, then 429 for every username", async () => {
    const page = await login_page();
    const ip = next_address();
    for (let i = 0; i < RULES.max_failures_per_ip; i++) expect((await attempt(page, ip, `nobody${i}`, "x")).status).toBe(200);
    await expect_throttled(await attempt(page, ip, await new_user(), t.password));
  });

  test("time-bounded: the lock ends with its window (Retry-After), then the right password works", async () => {
    const name = await new_user();
    const page = await login_page();
    const ip = next_address();
    for (let i = 0; i < RULES.max_failures; i++) await attempt(page, ip, name, "wrong");
    const retry = await expect_throttled(await attempt(page, ip, name, t.password));
    t.clock.advance(retry);
    expect((await attempt(page, ip, name, t.password)).status).toBe(303);
  });

  test("the account page's own sign-in shares the counters", async () => {
    const name = await new_user();
    const ip = next_address();
    const page = await login_page();
    for (let i = 0; i < RULES.max_failures; i++) await attempt(page, ip, name, "wrong");
    const browser = new Browser();
    const html = await (await browser.get(`${t.url}/account/login`)).text();
    const response = await browser.request("POST", `${t.url}/account/login`, {
      form: { csrf: hidden_field(html, "csrf")!, username: name, password: t.password },
      headers: { "x-forwarded-for": ip },
    });
    await expect_throttled(response);
  });

  test("counters are in the store: another instance refuses the locked address too", async () => {
    const name = await new_user();
    const ip = next_address();
    const page = await login_page();
    for (let i = 0; i < RULES.max_failures; i++) await attempt(page, ip, name, "wrong");
    const other = build_app(await create_provider(t.config, { store: t.store, log: () => {}, now: t.clock.now }));
    const page_answer = await other.fetch(new Request(`${t.issuer}/account/login`));
    const cookie = page_answer.headers.getSetCookie()[0]!.split(";")[0]!;
    const csrf = hidden_field(await page_answer.text(), "csrf")!;
    const response = await other.fetch(
      new Request(`${t.issuer}/account/login`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip, accept: "text/html" },
        body: new URLSearchParams({ csrf, username: name, password: t.password }).toString(),
      }),
      // In process there is no socket: the request comes from a loopback peer (a proxy on this host).
      { requestIP: () => ({ address: "127.0.0.1" }) },
    );
    await expect_throttled(response);
  });

  test("reaching a limit is recorded once as login_locked, with the user and the address, no username or password", async () => {
    const name = await new_user();
    const ip = next_address();
    const page = await login_page();
    for (let i = 0; i < RULES.max_failures + 2; i++) await attempt(page, ip, name, `secret-guess-${i}`);
    const user = await t.store.get_user_by_username(name);
    const events = (await t.store.list_audit_events({ type: "login_locked", limit: 1000 })).filter((e) => e.ip === ip);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ outcome: "failure", user_id: user!.id, details: { scope: "address_and_username" } });
    expect(JSON.stringify(events)).not.toContain("secret-guess");
  });
});

// Bun only for now: the wait is seen through Bun.sleep, what src/platform/runtime.ts `sleep` calls
// on Bun; Deno's sleep has no such hook to spy on.
describe.skipIf(RUNTIME !== "bun")("the wait per username (Bun only: seen through Bun.sleep)", () => {
  let sleep: ReturnType<typeof spyOn<typeof Bun, "sleep">>;
  beforeAll(() => {
    sleep = spyOn(Bun, "sleep").mockImplementation(async () => {});
  });
  afterEach(() => sleep.mockClear());
  afterAll(() => sleep.mockRestore());

  const waits = () => sleep.mock.calls.filter(([ms]) => ms === RULES.delay_ms).length;

  test("after delay_after failures for a username from any addresses, every attempt for it waits delay_ms — even from a new address, even the right password", async () => {
    const name = (await t.add_user({ username: "delayed" })).username;
    for (let i = 0; i < RULES.delay_after; i++) expect((await attempt(await login_page(), next_address(), name, "wrong")).status).toBe(200);
    expect(waits()).toBe(0);
    expect((await attempt(await login_page(), next_address(), name, t.password)).status).toBe(303);
    expect(waits()).toBe(1);
    // Another username is not slowed down.
    await attempt(await login_page(), next_address(), "alice", t.password);
    expect(waits()).toBe(1);
  });
});

test("every setting has an environment variable; defaults are OWASP-like", () => {
  const config = load_config({
    IDP_LOGIN_WINDOW_SECONDS: "60",
    IDP_LOGIN_MAX_FAILURES: "4",
    IDP_LOGIN_MAX_FAILURES_PER_IP: "40",
    IDP_LOGIN_DELAY_AFTER: "2",
    IDP_LOGIN_DELAY_MS: "250",
  });
  expect(config.login_throttle).toEqual({ window_seconds: 60, max_failures: 4, max_failures_per_ip: 40, delay_after: 2, delay_ms: 250 });
  expect(load_config({}).login_throttle).toEqual({ window_seconds: 900, max_failures: 10, max_failures_per_ip: 100, delay_after: 5, delay_ms: 1000 });
});
