/**
 * The account page over HTTP: its own sign-in (CSRF, wrong password), the password change
 * (current password required, other sessions end) and removing an application's access (grant
 * deleted, tokens revoked, consent asked again, audited).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser, account_login, account_page, authorize, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce, redeem, userinfo } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

describe("account sign-in", () => {
  test("without a session, /account sends the browser to the account's sign-in page", async () => {
    const response = await new Browser().get(`${t.url}/account`);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${t.issuer}/account/login`);
  });

  test("the sign-in page is the login page with a CSRF token; a POST without it is refused", async () => {
    const browser = new Browser();
    const page = await browser.get(`${t.url}/account/login`);
    const html = await page.text();
    expect(html).toContain("your account");
    expect(hidden_field(html, "csrf")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    const forged = await browser.post(`${t.url}/account/login`, { csrf: "x".repeat(43), username: "alice", password: t.password });
    expect(forged.status).toBe(403);
    const none = await new Browser().post(`${t.url}/account/login`, { username: "alice", password: t.password });
    expect(none.status).toBe(403);
  });

  test("a wrong password shows the message; the right one opens the account page", async () => {
    const browser = new Browser();
    const wrong = await account_login(t, browser, "alice", "nope");
    expect(wrong.status).toBe(200);
    expect(await wrong.text()).toContain("Wrong username or password.");
    const right = await account_login(t, browser, "alice", t.password);
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe(`${t.issuer}/account`);
    const { html } = await account_page(t, browser);
    expect(html).toContain("Signed in as <strong>alice</strong>");
    expect(html).toContain("Alice Liddell");
    expect(html).toContain("alice@example.com (verified)");
    // Already signed in: the sign-in page goes straight to the account.
    const again = await browser.get(`${t.url}/account/login`);
    expect(again.headers.get("location")).toBe(`${t.issuer}/account`);
  });
});

describe("password change", () => {
  test("needs the current password, a long enough new one typed twice; ends the other sessions", async () => {
    const user = await t.add_user({ username: "pat" }, "old password 1");
    const here = new Browser();
    const elsewhere = new Browser();
    expect((await account_login(t, here, "pat", "old password 1")).status).toBe(303);
    expect((await account_login(t, elsewhere, "pat", "old password 1")).status).toBe(303);
    const change = async (form: Record<string, string>) => {
      const { csrf } = await account_page(t, here);
      return here.post(`${t.url}/account/password`, { csrf, ...form });
    };

    const wrong = await change({ current_password: "guess", new_password: "new password 2", confirm_password: "new password 2" });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain("Your current password is not right.");
    const short = await change({ current_password: "old password 1", new_password: "short", confirm_password: "short" });
    expect(await short.text()).toContain("too short");
    const mismatch = await change({ current_password: "old password 1", new_password: "new password 2", confirm_password: "new password 3" });
    expect(await mismatch.text()).toContain("not the same");

    const ok = await change({ current_password: "old password 1", new_password: "new password 2", confirm_password: "new password 2" });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe(`${t.issuer}/account?done=password`);
    expect(await (await here.get(ok.headers.get("location")!)).text()).toContain("Your password was changed.");
    // The other browser is signed out.
    expect((await elsewhere.get(`${t.url}/account`)).headers.get("location")).toBe(`${t.issuer}/account/login`);
    expect((await t.store.list_sessions_for_user(user.id)).length).toBe(1);
    // The old password no longer works, the new one does; stored as argon2id.
    expect((await account_login(t, new Browser(), "pat", "old password 1")).status).toBe(200);
    expect((await account_login(t, new Browser(), "pat", "new password 2")).status).toBe(303);
    expect((await t.store.get_user_by_id(user.id))!.password_hash).toStartWith("$argon2id$");
    const events = await t.store.list_audit_events({ user_id: user.id, type: "password_change" });
    expect(events.map((e) => e.outcome)).toEqual(["success", "failure"]);
  });

  test("a form without this session's token is refused; without a session it goes to sign-in", async () => {
    const browser = new Browser();
    await account_login(t, browser, "alice", t.password);
    const forged = await browser.post(`${t.url}/account/password`, {
      csrf: "forged",
      current_password: t.password,
      new_password: "whatever 123",
      confirm_password: "whatever 123",
    });
    expect(forged.status).toBe(403);
    const anonymous = await new Browser().post(`${t.url}/account/password`, { csrf: "x" });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toBe(`${t.issuer}/account/login`);
  });
});

describe("applications the user allowed", () => {
  test("removing access deletes the grant, revokes the tokens, is audited; the next sign-in asks again", async () => {
    const user = await t.add_user({ username: "gina", name: "Gina" });
    const browser = new Browser();
    const run = async () => {
      const p = pkce();
      const url = authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256", scope: "openid email" });
      const { callback, steps } = await authorize(browser, url, { username: "gina", password: t.password, callback_prefix: REDIRECT_URI });
      return { code: callback.searchParams.get("code")!, verifier: p.verifier, steps };
    };
    const first = await run();
    expect(first.steps).toEqual(["login", "consent"]);
    const tokens = (await (await redeem(t, first.code, first.verifier)).json()) as { access_token: string; refresh_token?: string };
    expect((await userinfo(t, tokens.access_token)).status).toBe(200);

    // The authorization's session also opens the account page.
    const { html, csrf } = await account_page(t, browser);
    expect(html).toContain("Test App");
    expect(html).toContain("See your email address");
    const removed = await browser.post(`${t.url}/account/grants`, { csrf, client_id: t.client.client_id });
    expect(removed.status).toBe(303);
    expect(removed.headers.get("location")).toBe(`${t.issuer}/account?done=revoked`);
    expect(await t.store.get_grant(user.id, t.client.client_id)).toBeNull();
    expect((await userinfo(t, tokens.access_token)).status).toBe(401);
    const events = await t.store.list_audit_events({ user_id: user.id, type: "consent_revoked" });
    expect(events.length).toBe(1);
    expect(events[0]!.client_id).toBe(t.client.client_id);
    const after = await (await browser.get(removed.headers.get("location")!)).text();
    expect(after).toContain("Access removed.");
    expect(after).not.toContain("Remove access");

    // Still signed in, so no password: but the consent is asked again.
    const second = await run();
    expect(second.steps).toEqual(["consent"]);
  });
});
