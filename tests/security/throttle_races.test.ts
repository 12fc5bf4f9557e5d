/**
 * Throttles under concurrency (src/oidc/limits/login.ts, src/oidc/signin/second_factor.ts;
 * OWASP Authentication Cheat Sheet "Account Lockout", CWE-367): an attempt reserves its place in
 * the counters atomically before any verification, so 50 guesses sent at once get no more
 * checks than the budget, the rest 429 with Retry-After, and the right secret is refused too
 * until the window ends. Through real HTTP, on SQLite, on PostgreSQL, and on two provider
 * instances sharing one PostgreSQL database (half the guesses to each).
 *
 * Also one spelling per account (store/usernames.ts): NFD and fullwidth spellings of a name
 * reach the same account and the same counters.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "../helpers/test_api.ts";
import { serve, type Served } from "../../src/app/server.ts";
import { load_config } from "../../src/app/config.ts";
import { COUNTERS } from "../../src/oidc/limits/counters.ts";
import { new_totp_secret, totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { argon2_impl } from "../../src/platform/passwords.ts";
import { open_store } from "../../src/store/open.ts";
import type { Store } from "../../src/store/types.ts";
import { Browser, hidden_field } from "../helpers/browser.ts";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { create_temp_database, use_postgres, type TempDatabase } from "../store/pg.ts";

const RULES = { window_seconds: 600, max_failures: 5, max_failures_per_ip: 10_000, delay_after: 10_000, delay_ms: 0 };
const CONCURRENT = 50;
/** Second-factor codes checked per account and window (a fixed limit, whatever the config). */
const CODE_FAILURES_PER_USER = COUNTERS.second_factor_failures_per_user.limit.of(load_config({}));

type Setup = {
  t: TestProvider;
  /** The URLs requests alternate between: one instance, or two on one database. */
  urls: string[];
};

let addresses = 0;
/** A new client address (X-Forwarded-For with trust_proxy), so tests and attempts do not share counters unless meant to. */
const fresh_ip = () => {
  const n = ++addresses;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

let verify: ReturnType<typeof spyOn<typeof argon2_impl, "verify">>;
beforeAll(() => {
  verify = spyOn(argon2_impl, "verify");
});
afterAll(() => verify.mockRestore());

async function login_form(url: string, browser: Browser): Promise<string> {
  const page = await browser.get(`${url}/account/login`);
  expect(page.status).toBe(200);
  return hidden_field(await page.text(), "csrf")!;
}

function post(browser: Browser, url: string, form: Record<string, string>, from: string): Promise<Response> {
  return browser.request("POST", url, { form, headers: { "x-forwarded-for": from } });
}

function expect_throttled(response: Response, window: number): number {
  expect(response.status).toBe(429);
  const retry = Number(response.headers.get("retry-after"));
  expect(retry).toBeGreaterThan(0);
  // One second over at most: the refusing request read its clock before the store call, and the
  // window may have been opened by another request (or instance) a second later.
  expect(retry).toBeLessThanOrEqual(window + 1);
  return retry;
}

function race_tests(name: string, setup: () => Promise<Setup>, teardown: () => Promise<void>): void {
  describe(name, () => {
    let s: Setup;
    beforeAll(async () => {
      s = await setup();
    }, 30_000);
    afterAll(teardown);

    let users = 0;
    const new_user = async (username = `racer${++users}`) => s.t.add_user({ username });

    test(`${CONCURRENT} concurrent wrong passwords: at most max_failures are checked, the rest 429; then the right password waits for the window`, async () => {
      const user = await new_user();
      const browser = new Browser();
      const csrf = await login_form(s.urls[0]!, browser);
      const from = fresh_ip();
      verify.mockClear();
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) => post(browser, `${s.urls[i % s.urls.length]}/account/login`, { csrf, username: user.username, password: `guess ${i}` }, from)),
      );
      expect(verify.mock.calls.length).toBe(RULES.max_failures);
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(RULES.max_failures);
      expect(statuses.filter((status) => status === 429)).toHaveLength(CONCURRENT - RULES.max_failures);
      for (const answer of answers.filter((r) => r.status === 429)) expect_throttled(answer, RULES.window_seconds);

      // The right password, on either instance: refused without a password check, until the window ends.
      verify.mockClear();
      let retry = 0;
      for (const url of s.urls)
        retry = expect_throttled(await post(browser, `${url}/account/login`, { csrf, username: user.username, password: s.t.password }, from), RULES.window_seconds);
      expect(verify.mock.calls.length).toBe(0);
      // One login_locked event for the window, however the race went.
      const locked = (await s.t.store.list_audit_events({ type: "login_locked", user_id: user.id })).filter((e) => e.ip === from);
      expect(locked).toHaveLength(1);
      s.t.clock.advance(retry);
      expect((await post(browser, `${s.urls[s.urls.length - 1]}/account/login`, { csrf, username: user.username, password: s.t.password }, from)).status).toBe(303);
    }, 30_000);

    test(`${CONCURRENT} concurrent wrong codes from as many addresses: at most CODE_FAILURES_PER_USER are checked, the rest 429; then the right code waits`, async () => {
      const secret = new_totp_secret();
      const user = await new_user();
      await s.t.store.update_user(user.id, { totp_secret: secret, totp_enabled_at: s.t.clock.now() });
      const browser = new Browser();
      const csrf = await login_form(s.urls[0]!, browser);
      const after_password = await post(browser, `${s.urls[0]}/account/login`, { csrf, username: user.username, password: s.t.password }, fresh_ip());
      expect(after_password.status).toBe(303);
      const two_factor_path = new URL(after_password.headers.get("location")!).pathname;
      const page = await browser.get(`${s.urls[0]}${two_factor_path}`);
      const code_csrf = hidden_field(await page.text(), "csrf")!;
      const step = totp_step(s.t.clock.now());
      const near = new Set([-1, 0, 1].map((d) => totp_code(secret, step + d)));
      const wrong = Array.from({ length: CONCURRENT }, (_, i) => String(100000 + i * 7919)).filter((code) => !near.has(code));

      const answers = await Promise.all(wrong.map((code, i) => post(browser, `${s.urls[i % s.urls.length]}${two_factor_path}`, { csrf: code_csrf, code }, fresh_ip())));
      const checked = (await s.t.store.list_audit_events({ type: "two_factor", user_id: user.id, limit: 1000 })).filter((e) => e.outcome === "failure");
      expect(checked).toHaveLength(CODE_FAILURES_PER_USER);
      expect(answers.filter((r) => r.status === 200)).toHaveLength(CODE_FAILURES_PER_USER);
      const refused = answers.filter((r) => r.status === 429);
      expect(refused).toHaveLength(wrong.length - CODE_FAILURES_PER_USER);
      let retry = 0;
      for (const answer of refused) retry = Math.max(retry, expect_throttled(answer, 15 * 60));

      // The right code, from a new address: refused, and not checked (no audit event).
      const right = await post(browser, `${s.urls[s.urls.length - 1]}${two_factor_path}`, { csrf: code_csrf, code: totp_code(secret, step) }, fresh_ip());
      expect_throttled(right, 15 * 60);
      expect((await s.t.store.list_audit_events({ type: "two_factor", user_id: user.id, limit: 1000 })).length).toBe(CODE_FAILURES_PER_USER);

      // The window ends: sign in again (the interaction may have expired meanwhile), the right code works.
      s.t.clock.advance(retry);
      const again = new Browser();
      const again_csrf = await login_form(s.urls[0]!, again);
      const password_step = await post(again, `${s.urls[0]}/account/login`, { csrf: again_csrf, username: user.username, password: s.t.password }, fresh_ip());
      const path = new URL(password_step.headers.get("location")!).pathname;
      const html = await (await again.get(`${s.urls[0]}${path}`)).text();
      const done = await post(again, `${s.urls[0]}${path}`, { csrf: hidden_field(html, "csrf")!, code: totp_code(secret, totp_step(s.t.clock.now())) }, fresh_ip());
      expect(done.status).toBe(303);
      expect(new URL(done.headers.get("location")!).pathname).toBe("/account");
    }, 30_000);

    test("one spelling per account: NFD and fullwidth spellings sign in to the same account and share its counters", async () => {
      const user = await new_user("jos\u00E9"); // NFC "josé"
      const nfd = "jose\u0301";
      const fullwidth = "\uFF4A\uFF4F\uFF53\u00E9"; // "ｊｏｓé"
      const browser = new Browser();
      const csrf = await login_form(s.urls[0]!, browser);
      const from = fresh_ip();
      // Failures under three spellings fill one (address, username) window.
      const spellings = [nfd, fullwidth, "JOS\u00C9", nfd, fullwidth];
      for (const [i, spelling] of spellings.entries()) {
        expect((await post(browser, `${s.urls[0]}/account/login`, { csrf, username: spelling, password: `guess ${i}` }, from)).status).toBe(200);
      }
      expect_throttled(await post(browser, `${s.urls[0]}/account/login`, { csrf, username: "jos\u00E9", password: s.t.password }, from), RULES.window_seconds);
      // From another address, each spelling signs in to the one account.
      for (const spelling of [nfd, fullwidth]) {
        const b = new Browser();
        const c = await login_form(s.urls[0]!, b);
        expect((await post(b, `${s.urls[0]}/account/login`, { csrf: c, username: spelling, password: s.t.password }, fresh_ip())).status).toBe(303);
        const account = await (await b.get(`${s.urls[0]}/account`)).text();
        expect(account).toContain(user.username);
      }
      const logins = await s.t.store.list_audit_events({ type: "login", user_id: user.id, limit: 100 });
      expect(logins.filter((e) => e.outcome === "success")).toHaveLength(2);
    }, 30_000);
  });
}

let on_sqlite: TestProvider | undefined;
race_tests(
  "sqlite",
  async () => {
    on_sqlite = await start_provider({ config: { trust_proxy: true, login_throttle: RULES } });
    return { t: on_sqlite, urls: [on_sqlite.url] };
  },
  async () => {
    await on_sqlite?.stop();
  },
);

if (await use_postgres()) {
  let single: { t: TestProvider; db: TempDatabase } | undefined;
  race_tests(
    "postgres",
    async () => {
      const db = await create_temp_database();
      const t = await start_provider({ database_url: db.url, config: { trust_proxy: true, login_throttle: RULES } });
      single = { t, db };
      return { t, urls: [t.url] };
    },
    async () => {
      await single?.t.stop();
      await single?.db.drop();
    },
  );

  let pair: { t: TestProvider; db: TempDatabase; other_store: Store; other: Served } | undefined;
  race_tests(
    "two instances on one postgres",
    async () => {
      const db = await create_temp_database();
      const t = await start_provider({ database_url: db.url, config: { trust_proxy: true, login_throttle: RULES } });
      // Instance B: its own store (its own connection pool) on the same database, the same settings and clock.
      const other_store = await open_store(db.url, { migrate: true });
      const other = await serve(t.config, { store: other_store, port: await free_port(), now: t.clock.now, log: () => {}, out: () => {} });
      pair = { t, db, other_store, other };
      return { t, urls: [t.url, other.url] };
    },
    async () => {
      await pair?.other.stop();
      await pair?.other_store.close();
      await pair?.t.stop();
      await pair?.db.drop();
    },
  );
}
