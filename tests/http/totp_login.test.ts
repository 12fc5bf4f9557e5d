/**
 * Two-step verification over HTTP: enrolment on the account page (QR and secret, one valid code
 * turns it on, recovery codes shown once), sign-in asking for the code after the password (amr
 * ["pwd","otp"] in the ID Token), a code used once, recovery codes used once, throttling,
 * acr_values=mfa (step-up, prompt=none, users without an app), turning it off.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { decodeJwt } from "jose";
import { totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { Browser, account_login, account_page, authorize, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce, redeem } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { rejection } from "../helpers/settle.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

/** The current code for `secret` on the provider's clock. */
const code_now = (secret: string, offset = 0) => totp_code(secret, totp_step(t.clock.now()) + offset);

/** Signs `username` in at the account page and turns two-step verification on; returns the secret and recovery codes. */
async function enrol(username: string, browser = new Browser()): Promise<{ secret: string; recovery: string[]; browser: Browser }> {
  if ((await browser.get(`${t.url}/account`)).status !== 200) expect((await account_login(t, browser, username, t.password)).status).toBe(303);
  const setup = await browser.get(`${t.url}/account/totp`);
  expect(setup.status).toBe(200);
  const html = await setup.text();
  expect(html).toContain('src="data:image/svg+xml;base64,');
  const secret = /<code class="secret" id="secret">([A-Z2-7 ]+)<\/code>/.exec(html)![1]!.replaceAll(" ", "");
  const csrf = hidden_field(html, "csrf")!;
  const enabled = await browser.post(`${t.url}/account/totp`, { csrf, action: "enable", code: code_now(secret) });
  expect(enabled.status).toBe(200);
  const page = await enabled.text();
  const recovery = [...page.matchAll(/<li><code>([a-z2-7]{5}-[a-z2-7]{5})<\/code><\/li>/g)].map((m) => m[1]!);
  expect(recovery.length).toBe(10);
  // The code just used to confirm cannot sign in: move to the next step.
  t.clock.advance(30);
  return { secret, recovery, browser };
}

/** An authorization for the test client as `username`, through the pages; the callback and steps. */
async function sign_in(username: string, second_factor: (() => string | { recovery_code: string }) | undefined, params: Record<string, string> = {}, browser = new Browser()) {
  const p = pkce();
  const url = authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256", ...params });
  const { callback, steps } = await authorize(browser, url, { username, password: t.password, callback_prefix: REDIRECT_URI, ...(second_factor ? { second_factor } : {}) });
  return { callback, steps, verifier: p.verifier, browser };
}

async function id_token_of(callback: URL, verifier: string): Promise<Record<string, unknown>> {
  const body = (await (await redeem(t, callback.searchParams.get("code")!, verifier)).json()) as { id_token: string };
  return decodeJwt(body.id_token);
}

describe("enrolment", () => {
  test("the set-up page keeps a pending secret; a wrong code does not turn it on; a right one does", async () => {
    const user = await t.add_user({ username: "erin" });
    const browser = new Browser();
    await account_login(t, browser, "erin", t.password);
    const first = await (await browser.get(`${t.url}/account/totp`)).text();
    const second = await (await browser.get(`${t.url}/account/totp`)).text();
    const secret = /id="secret">([A-Z2-7 ]+)</.exec(first)![1]!;
    // Reloading shows the same secret (the app may already have scanned it).
    expect(second).toContain(secret);
    const pending = (await t.store.get_user_by_id(user.id))!;
    expect(pending.totp_secret).toBe(secret.replaceAll(" ", ""));
    expect(pending.totp_enabled_at).toBeNull();
    // Not on yet: the password alone still signs in.
    expect((await sign_in("erin", undefined)).steps).toEqual(["login", "consent"]);

    const csrf = hidden_field(first, "csrf")!;
    const wrong = await browser.post(`${t.url}/account/totp`, { csrf, action: "enable", code: "000000" === code_now(secret.replaceAll(" ", "")) ? "111111" : "000000" });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("That code is not right.");
    expect((await t.store.get_user_by_id(user.id))!.totp_enabled_at).toBeNull();

    const right = await browser.post(`${t.url}/account/totp`, { csrf, action: "enable", code: code_now(secret.replaceAll(" ", "")) });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain("This is the only time they are shown.");
    expect((await t.store.get_user_by_id(user.id))!.totp_enabled_at).not.toBeNull();
    expect(await t.store.count_recovery_codes(user.id)).toBe(10);
    expect((await t.store.list_audit_events({ user_id: user.id, type: "two_factor_enrolled" })).length).toBe(1);
    expect((await account_page(t, browser)).html).toContain("10 unused recovery codes");
  });
});

describe("signing in with two factors", () => {
  let secret: string;
  let recovery: string[];
  let user_id: string;
  beforeAll(async () => {
    user_id = (await t.add_user({ username: "tomas" })).id;
    ({ secret, recovery } = await enrol("tomas"));
  });

  test("the code is asked after the password; the ID Token says amr pwd+otp, no acr unless asked", async () => {
    const { callback, steps, verifier } = await sign_in("tomas", () => code_now(secret));
    expect(steps).toEqual(["login", "two-factor", "consent"]);
    const claims = await id_token_of(callback, verifier);
    expect(claims.amr).toEqual(["pwd", "otp"]);
    expect(claims.acr).toBeUndefined();
    const events = await t.store.list_audit_events({ user_id: user_id, type: "two_factor" });
    expect(events[0]!.outcome).toBe("success");
    expect(events[0]!.details).toEqual({ method: "totp" });
  });

  test("the same code cannot sign in twice; a wrong one is refused with a message", async () => {
    t.clock.advance(30);
    const code = code_now(secret);
    await sign_in("tomas", () => code);
    const browser = new Browser();
    const p = pkce();
    let response = await browser.get(authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }));
    let html = await (await browser.get(response.headers.get("location")!)).text();
    response = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "tomas", password: t.password });
    expect(response.headers.get("location")).toMatch(/\/interaction\/[^/]+\/two-factor$/);
    const page = response.headers.get("location")!;
    html = await (await browser.get(page)).text();
    expect(html).toContain("Two-step verification");
    const reused = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, code });
    expect(await reused.text()).toContain("That code was already used.");
    const wrong = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, code: code === "123456" ? "654321" : "123456" });
    expect(await wrong.text()).toContain("That code is not right.");
    // No session was started by the password alone.
    expect(browser.cookies.has("idp_session")).toBe(false);
  });

  test("a recovery code works once instead of the app's code", async () => {
    const first = await sign_in("tomas", () => ({ recovery_code: recovery[0]! }));
    expect(first.steps).toEqual(["login", "two-factor"]);
    expect(first.callback.searchParams.get("code")).not.toBeNull();
    expect(await t.store.count_recovery_codes(user_id)).toBe(9);
    // Used: the two-factor page comes back with the message instead of a redirect.
    expect((await rejection(sign_in("tomas", () => ({ recovery_code: recovery[0]! })))).message).toContain("expected a redirect, got 200");
    const failures = await t.store.list_audit_events({ user_id: user_id, type: "two_factor" });
    expect(failures[0]!.outcome).toBe("failure");
    expect(failures[0]!.details).toEqual({ method: "recovery_code" });
  });

  test("the account page's own sign-in asks for the code too", async () => {
    t.clock.advance(30);
    const browser = new Browser();
    const after_password = await account_login(t, browser, "tomas", t.password);
    expect(after_password.status).toBe(303);
    const page = after_password.headers.get("location")!;
    expect(page).toMatch(/\/interaction\/[^/]+\/two-factor$/);
    expect((await browser.get(`${t.url}/account`)).status).toBe(302);
    const html = await (await browser.get(page)).text();
    expect(html).toContain("your account");
    const done = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, code: code_now(secret) });
    expect(done.headers.get("location")).toBe(`${t.issuer}/account`);
    expect((await account_page(t, browser)).html).toContain("<strong>On</strong> since");
  });
});

describe("acr_values", () => {
  test("mfa from a user without an authenticator app stops on a page that says what to do", async () => {
    await t.add_user({ username: "nell" });
    const browser = new Browser();
    const p = pkce();
    const start = await browser.get(authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256", acr_values: "mfa" }));
    const html = await (await browser.get(start.headers.get("location")!)).text();
    const answer = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "nell", password: t.password });
    expect(answer.status).toBe(403);
    const text = await answer.text();
    expect(text).toContain("This application requires two-step verification");
    expect(text).toContain(`${t.issuer}/account`);
  });

  test("mfa makes a password-only session sign in again with the code; acr mfa in the ID Token", async () => {
    await t.add_user({ username: "olga" });
    const browser = new Browser();
    // A password-only session in this browser, then the app is set up.
    await account_login(t, browser, "olga", t.password);
    const { secret } = await enrol("olga", browser);
    const none = authorization_url(t, { acr_values: "mfa", prompt: "none" });
    const silent = await browser.get(none);
    expect(new URL(silent.headers.get("location")!).searchParams.get("error")).toBe("login_required");
    const { steps, callback, verifier } = await sign_in("olga", () => code_now(secret), { acr_values: "mfa" }, browser);
    expect(steps).toEqual(["login", "two-factor", "consent"]);
    const claims = await id_token_of(callback, verifier);
    expect(claims.acr).toBe("mfa");
    expect(claims.amr).toEqual(["pwd", "otp"]);
    // Now the session has both factors: no new sign-in for mfa.
    const again = await sign_in("olga", () => code_now(secret), { acr_values: "mfa" }, browser);
    expect(again.steps).toEqual([]);
  });

  test("discovery advertises the acr values", async () => {
    const meta = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { acr_values_supported: string[] };
    expect(meta.acr_values_supported).toEqual(["mfa", "pwd", "phr", "phrh"]);
  });
});

describe("throttling and turning it off", () => {
  test("wrong codes are throttled like passwords: after ten, 429 (and the audit log has them)", async () => {
    const user = await t.add_user({ username: "wade" });
    const { secret } = await enrol("wade");
    const right = code_now(secret);
    const wrong = right === "000000" ? "000001" : "000000";
    const browser = new Browser();
    const after_password = await account_login(t, browser, "wade", t.password);
    const page = after_password.headers.get("location")!;
    const html = await (await browser.get(page)).text();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, code: wrong })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses[10]).toBe(429);
    // Even the right code waits now.
    expect((await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, code: right })).status).toBe(429);
    expect((await t.store.list_audit_events({ user_id: user.id, type: "two_factor" })).length).toBe(10);
  });

  test("turning it off needs the password; then the password alone signs in again", async () => {
    const user = await t.add_user({ username: "zoe" });
    const { browser } = await enrol("zoe");
    const remove = async (password: string) => {
      const { csrf } = await account_page(t, browser);
      return browser.post(`${t.url}/account/totp`, { csrf, action: "remove", password });
    };
    const wrong = await remove("not it");
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("Your password is not right.");
    const ok = await remove(t.password);
    expect(ok.headers.get("location")).toBe(`${t.issuer}/account?done=totp_removed`);
    const row = (await t.store.get_user_by_id(user.id))!;
    expect(row.totp_secret).toBeNull();
    expect(row.totp_enabled_at).toBeNull();
    expect(await t.store.count_recovery_codes(user.id)).toBe(0);
    expect((await t.store.list_audit_events({ user_id: user.id, type: "two_factor_removed" })).length).toBe(1);
    expect((await sign_in("zoe", undefined)).steps).toEqual(["login", "consent"]);
  });

  test("new recovery codes replace the old ones (password required)", async () => {
    const user = await t.add_user({ username: "yves" });
    const { browser, recovery } = await enrol("yves");
    const { csrf } = await account_page(t, browser);
    const fresh = await browser.post(`${t.url}/account/totp`, { csrf, action: "recovery_codes", password: t.password });
    expect(fresh.status).toBe(200);
    const codes = [...(await fresh.text()).matchAll(/<li><code>([a-z2-7-]{11})<\/code><\/li>/g)].map((m) => m[1]!);
    expect(codes.length).toBe(10);
    expect(codes).not.toContain(recovery[0]!);
    expect(await t.store.consume_recovery_code(user.id, "nothing")).toBe(false);
  });
});
