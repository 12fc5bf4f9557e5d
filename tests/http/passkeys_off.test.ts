/**
 * IDP_PASSKEYS=off with IDP_REQUIRE_2FA=all: no passkey anywhere (no script, no endpoint, no
 * phr in discovery), and every password sign-in of a user without a second factor goes on to
 * set up an authenticator app (TOTP) before the application gets a code — for an application
 * and for the account page alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { totp_code, totp_step } from "../../src/oidc/signin/totp.ts";
import { Browser, account_login, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;

beforeAll(async () => {
  t = await start_provider({ config: { passkeys: false, require_2fa: "all" } });
});

afterAll(async () => {
  await t.stop();
});

describe("IDP_PASSKEYS=off", () => {
  test("no passkey classes in discovery, no script or passkey form on the sign-in page, no endpoints", async () => {
    const meta = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { acr_values_supported: string[] };
    expect(meta.acr_values_supported).toEqual(["mfa", "pwd"]);
    const browser = new Browser();
    const start = await browser.get(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256" }));
    const location = start.headers.get("location")!;
    const page = await browser.get(location);
    const html = await page.text();
    expect(html).not.toContain("<script");
    expect(html).not.toContain("passkey");
    expect(html).toContain('autocomplete="username"');
    expect(page.headers.get("content-security-policy")).not.toContain("script-src");
    const id = /\/interaction\/([^/]+)\/login$/.exec(location)![1]!;
    const options = await browser.post(`${t.url}/interaction/${id}/passkey/options`, { step: "login", csrf: hidden_field(html, "csrf")! });
    expect(options.status).toBe(404);
    expect((await browser.post(`${t.url}/account/login/passkey/options`, {})).status).toBe(404);
    expect((await browser.post(`${t.url}/password/reset/passkey/options`, {})).status).toBe(404);
  });
});

describe("IDP_REQUIRE_2FA=all", () => {
  test("a user without a second factor sets up an authenticator app after the password; the code gets amr pwd+otp", async () => {
    const user = await t.add_user({ username: "wendy" });
    const browser = new Browser();
    const start = await browser.get(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256" }));
    const login = await (await browser.get(start.headers.get("location")!)).text();
    const csrf = hidden_field(login, "csrf")!;
    const after = await browser.post(form_action(login)!, { csrf, username: "wendy", password: t.password });
    const two_factor = after.headers.get("location")!;
    expect(two_factor).toEndWith("/two-factor");
    const enrol = await (await browser.get(two_factor)).text();
    expect(enrol).toContain("Add a second factor");
    expect(enrol).not.toContain("passkey");
    const setup_url = /href="([^"]*\/enrol-totp)"/.exec(enrol)![1]!;

    const setup = await (await browser.get(setup_url)).text();
    expect(setup).toContain("data:image/");
    const secret = (await t.store.get_user_by_id(user.id))!.totp_secret!;
    expect((await t.store.get_user_by_id(user.id))!.totp_enabled_at).toBeNull();
    const wrong = await browser.post(setup_url, { csrf, code: "000000" === totp_code(secret, totp_step(t.clock.now())) ? "111111" : "000000" });
    expect(wrong.status).toBe(400);
    expect(browser.cookies.has("idp_session")).toBe(false);

    const codes = await browser.post(setup_url, { csrf, code: totp_code(secret, totp_step(t.clock.now())) });
    expect(codes.status).toBe(200);
    const codes_html = await codes.text();
    expect(codes_html).toContain("This is the only time they are shown.");
    expect(await t.store.count_recovery_codes(user.id)).toBe(10);
    expect(browser.cookies.has("idp_session")).toBe(false);
    const done = await browser.post(form_action(codes_html)!, { csrf, enrolled: "1" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toEndWith("/consent");
    expect(browser.cookies.has("idp_session")).toBe(true);
    // The continue is taken once: sent again (replayed), it gets nowhere.
    const again = await browser.post(form_action(codes_html)!, { csrf, enrolled: "1" });
    expect(again.status).toBe(400);

    const consent = await (await browser.get(done.headers.get("location")!)).text();
    const answer = await browser.post(form_action(consent)!, { csrf: hidden_field(consent, "csrf")!, decision: "allow" });
    expect(answer.headers.get("location")).toStartWith(REDIRECT_URI);
    const [session] = await t.store.list_sessions_for_user(user.id);
    expect(session!.amr).toEqual(["pwd", "otp"]);
    const [event] = await t.store.list_audit_events({ user_id: user.id, type: "two_factor_enrolled" });
    expect(event).toMatchObject({ outcome: "success", details: { method: "totp", at_sign_in: true } });
  });

  test("the account page's own sign-in asks for it too; a user with an app gets the code page", async () => {
    await t.add_user({ username: "xena" });
    const browser = new Browser();
    const answer = await account_login(t, browser, "xena", t.password);
    expect(answer.headers.get("location")).toEndWith("/two-factor");
    expect(await (await browser.get(answer.headers.get("location")!)).text()).toContain("Add a second factor");
    expect(browser.cookies.has("idp_session")).toBe(false);

    const yara = await t.add_user({ username: "yara", totp_secret: "JBSWY3DPEHPK3PXP", totp_enabled_at: t.clock.now() });
    const other = new Browser();
    const step = await account_login(t, other, "yara", t.password);
    const page = await (await other.get(step.headers.get("location")!)).text();
    expect(page).toContain("6-digit code");
    expect(page).not.toContain("Add a second factor");
    expect(yara.totp_enabled_at).not.toBeNull();
  });
});
