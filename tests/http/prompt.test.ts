/**
 * OIDC Core §3.1.2.1 authentication request semantics, each driven by openid-client:
 * prompt (none, login, consent, select_account), max_age and default_max_age, id_token_hint,
 * login_hint, and the parameters accepted without effect (acr_values, display, locales).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type * as client from "openid-client";
import { Browser } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { drive, exchange, expect_error, full_flow, relying_party, received, start } from "./authorize_helpers.ts";

let t: TestProvider;
let rp: client.Configuration;
beforeAll(async () => {
  t = await start_provider();
  rp = await relying_party(t);
});
afterAll(() => t.stop());

/** A browser signed in to the default client (login and consent done once). */
async function signed_in(): Promise<{ browser: Browser; id_token: string; auth_time: number }> {
  const browser = new Browser();
  const { tokens, claims } = await full_flow(rp, browser);
  return { browser, id_token: tokens.id_token!, auth_time: claims.auth_time! };
}

describe("prompt=none", () => {
  test("prompt=none without session → login_required", async () => {
    const started = await start(rp, { prompt: "none" });
    const { arrival, pages } = await drive(new Browser(), started.url.href);
    expect(pages).toEqual([]);
    expect_error(t, arrival, "login_required", started.state);
  });

  test("prompt=none with session and grant → code without UI", async () => {
    const { browser } = await signed_in();
    const started = await start(rp, { prompt: "none" });
    const { arrival, pages } = await drive(browser, started.url.href);
    expect(pages).toEqual([]);
    const { claims } = await exchange(rp, started, arrival);
    expect(claims.sub).toBe(t.user.id);
  });

  test("prompt=none with session but no consent for this client → consent_required", async () => {
    const { browser } = await signed_in();
    const { client: other, secret } = await t.add_client({ client_name: "Never approved" });
    const other_rp = await relying_party(t, other.client_id, secret!);
    const started = await start(other_rp, { prompt: "none" });
    const { arrival, pages } = await drive(browser, started.url.href);
    expect(pages).toEqual([]);
    expect_error(t, arrival, "consent_required", started.state);
  });

  test("prompt=none with session but a scope not yet granted → consent_required", async () => {
    const { browser } = await signed_in();
    const started = await start(rp, { prompt: "none", scope: "openid phone" });
    expect_error(t, (await drive(browser, started.url.href)).arrival, "consent_required", started.state);
  });

  test("prompt=none when max_age needs a fresh login → login_required", async () => {
    const { browser } = await signed_in();
    t.clock.advance(120);
    const started = await start(rp, { prompt: "none", max_age: "60" });
    expect_error(t, (await drive(browser, started.url.href)).arrival, "login_required", started.state);
  });

  test("prompt=none combined with another value → invalid_request", async () => {
    const { browser } = await signed_in();
    for (const other of ["login", "consent", "select_account"]) {
      const started = await start(rp, { prompt: `none ${other}` });
      expect_error(t, (await drive(browser, started.url.href)).arrival, "invalid_request", started.state);
    }
  });
});

describe("prompt=login, consent, select_account", () => {
  test("prompt=login re-authenticates and auth_time is newer", async () => {
    const { browser, auth_time } = await signed_in();
    t.clock.advance(30);
    const again = await full_flow(rp, browser, { prompt: "login" });
    expect(again.pages).toEqual(["login"]);
    expect(again.claims.auth_time!).toBeGreaterThanOrEqual(auth_time + 30);
  });

  test("prompt=consent shows the consent page even when already granted", async () => {
    const { browser } = await signed_in();
    const again = await full_flow(rp, browser, { prompt: "consent" });
    expect(again.pages).toEqual(["consent"]);
  });

  test("prompt=select_account is handled as login (and not advertised)", async () => {
    const { browser } = await signed_in();
    const again = await full_flow(rp, browser, { prompt: "select_account" });
    expect(again.pages).toEqual(["login"]);
    expect(rp.serverMetadata().prompt_values_supported).toEqual(["none", "login", "consent"]);
  });

  test("an unknown prompt value → invalid_request", async () => {
    const started = await start(rp, { prompt: "create" });
    expect_error(t, (await drive(new Browser(), started.url.href)).arrival, "invalid_request", started.state);
  });
});

describe("max_age", () => {
  test("max_age=0 forces login", async () => {
    const { browser, auth_time } = await signed_in();
    t.clock.advance(1);
    const again = await full_flow(rp, browser, { max_age: "0" });
    expect(again.pages).toEqual(["login"]);
    expect(again.claims.auth_time!).toBeGreaterThan(auth_time);
  });

  test("max_age not yet reached reuses the session, and auth_time is in the ID Token", async () => {
    const { browser, auth_time } = await signed_in();
    t.clock.advance(10);
    // openid-client checks auth_time + max_age against its clock (maxAge passed by full_flow).
    const again = await full_flow(rp, browser, { max_age: "3600" });
    expect(again.pages).toEqual([]);
    expect(again.claims.auth_time).toBe(auth_time);
  });

  test("max_age older than the session's auth_time forces login", async () => {
    const { browser } = await signed_in();
    t.clock.advance(61);
    expect((await full_flow(rp, browser, { max_age: "60" })).pages).toEqual(["login"]);
  });

  test("default_max_age from client metadata", async () => {
    const { client: strict, secret } = await t.add_client({ client_name: "Strict", default_max_age: 60, skip_consent: true });
    // openid-client then requires auth_time and checks it against default_max_age.
    const strict_rp = await relying_party(t, strict.client_id, secret!, { default_max_age: 60 });
    const browser = new Browser();
    expect((await full_flow(strict_rp, browser)).pages).toEqual(["login"]);
    t.clock.advance(30);
    expect((await full_flow(strict_rp, browser)).pages).toEqual([]);
    t.clock.advance(31);
    const late = await full_flow(strict_rp, browser);
    expect(late.pages).toEqual(["login"]);
    expect(typeof late.claims.auth_time).toBe("number");
    // A max_age in the request wins over default_max_age.
    t.clock.advance(120);
    expect((await full_flow(strict_rp, browser, { max_age: "3600" })).pages).toEqual([]);
  });

  test("require_auth_time client: auth_time in the ID Token", async () => {
    const { client: registered, secret } = await t.add_client({ client_name: "Needs auth_time", require_auth_time: true, skip_consent: true });
    // openid-client with require_auth_time fails the exchange when auth_time is missing.
    const needs = await relying_party(t, registered.client_id, secret!, { require_auth_time: true });
    expect(typeof (await full_flow(needs, new Browser())).claims.auth_time).toBe("number");
  });

  test("a malformed max_age → invalid_request", async () => {
    const started = await start(rp, { max_age: "-1" });
    expect_error(t, (await drive(new Browser(), started.url.href)).arrival, "invalid_request", started.state);
  });
});

describe("id_token_hint", () => {
  test("id_token_hint of the signed-in user with prompt=none → code", async () => {
    const { browser, id_token } = await signed_in();
    const again = await full_flow(rp, browser, { prompt: "none", id_token_hint: id_token });
    expect(again.pages).toEqual([]);
    expect(again.claims.sub).toBe(t.user.id);
  });

  test("an expired id_token_hint is still accepted", async () => {
    const { browser, id_token } = await signed_in();
    t.clock.advance(t.config.tokens.id_token_ttl + 60);
    expect((await full_flow(rp, browser, { prompt: "none", id_token_hint: id_token })).claims.sub).toBe(t.user.id);
  });

  test("id_token_hint for another user → login_required", async () => {
    const bob = await t.add_user({ username: `bob-${crypto.randomUUID().slice(0, 8)}`, name: "Bob" });
    const bob_browser = new Browser();
    const bobs = await full_flow(rp, bob_browser, {}, { username: bob.username });
    expect(bobs.claims.sub).toBe(bob.id);
    const { browser } = await signed_in();
    const started = await start(rp, { prompt: "none", id_token_hint: bobs.tokens.id_token! });
    expect_error(t, (await drive(browser, started.url.href)).arrival, "login_required", started.state);
  });

  test("id_token_hint for another user without prompt=none asks for a fresh login", async () => {
    const bob = await t.add_user({ username: `bob-${crypto.randomUUID().slice(0, 8)}` });
    const bobs = await full_flow(rp, new Browser(), {}, { username: bob.username });
    const { browser } = await signed_in();
    // Bob signs in on Alice's browser: the client gets Bob, as it asked.
    const again = await full_flow(rp, browser, { id_token_hint: bobs.tokens.id_token! }, { username: bob.username });
    // (Bob approved this client in his first flow: no consent page.)
    expect(again.pages).toEqual(["login"]);
    expect(again.claims.sub).toBe(bob.id);
  });

  test("signing in as someone else than the id_token_hint names → login_required", async () => {
    const bob = await t.add_user({ username: `bob-${crypto.randomUUID().slice(0, 8)}` });
    const bobs = await full_flow(rp, new Browser(), {}, { username: bob.username });
    const started = await start(rp, { id_token_hint: bobs.tokens.id_token! });
    const { arrival, pages } = await drive(new Browser(), started.url.href, { username: "alice" });
    expect(pages).toEqual(["login"]);
    expect_error(t, arrival, "login_required", started.state);
  });

  test("an invalid id_token_hint → invalid_request", async () => {
    const { id_token } = await signed_in();
    const [header, payload] = id_token.split(".");
    for (const hint of ["not-a-jwt", `${header}.${payload}.AAAA`]) {
      const started = await start(rp, { id_token_hint: hint });
      expect_error(t, (await drive(new Browser(), started.url.href)).arrival, "invalid_request", started.state);
    }
  });
});

describe("login_hint and accepted parameters", () => {
  test("login_hint pre-fills username", async () => {
    const browser = new Browser();
    const started = await start(rp, { login_hint: "alice@example.com" });
    const first = await browser.get(started.url.href);
    const page = await browser.get(first.headers.get("location")!);
    const html = await page.text();
    expect(html).toMatch(/<input id="username" name="username" type="text" value="alice@example.com"/);
  });

  test("login_hint is escaped in the page", async () => {
    const browser = new Browser();
    const started = await start(rp, { login_hint: `"><script>alert(1)</script>` });
    const first = await browser.get(started.url.href);
    const html = await (await browser.get(first.headers.get("location")!)).text();
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;script&gt;");
  });

  test("acr_values, display, ui_locales and claims_locales are accepted", async () => {
    const flow = await full_flow(rp, new Browser(), { acr_values: "urn:example:loa:1 urn:example:loa:2", display: "popup", ui_locales: "fr-CA fr en", claims_locales: "de" });
    expect(flow.pages).toEqual(["login"]);
    expect(received(flow.arrival).get("code")).toBeTruthy();
  });
});
