/**
 * OIDC RP-Initiated Logout 1.0 over real HTTP, with openid-client v6 as the relying party
 * (buildEndSessionUrl): discovery, the id_token_hint checks, exact post_logout_redirect_uri
 * matching (no open redirect), the confirmation page and its CSRF token, and what a logout ends.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { session_sid } from "../../src/oidc/logout/sid.ts";
import { BYE, end_session_url, jwt_claims, make_rp, sign_in, silent_authorize, type Rp } from "./logout_helpers.ts";

let t: TestProvider;
let rp: Rp;
beforeAll(async () => {
  t = await start_provider();
  rp = await make_rp(t, { post_logout_redirect_uris: [BYE, "https://rp.example.com/bye?from=idp"] });
});
afterAll(() => t.stop());

const session_of = (browser: Browser) => browser.cookies.get("idp_session");

async function expect_error_page(response: Response, words: RegExp): Promise<void> {
  expect(response.status).toBe(400);
  expect(response.headers.get("location")).toBeNull();
  expect(response.headers.get("content-type")).toStartWith("text/html");
  expect(await response.text()).toMatch(words);
}

describe("discovery", () => {
  test("advertises end_session_endpoint, back-channel logout with sid, and the sid claim", async () => {
    const meta = rp.config.serverMetadata();
    expect(meta.end_session_endpoint).toBe(`${t.issuer}/logout`);
    expect(meta.backchannel_logout_supported).toBe(true);
    expect(meta.backchannel_logout_session_supported).toBe(true);
    expect(meta.claims_supported).toContain("sid");
  });

  test("the end_session_endpoint answers: signed-out page with the security headers", async () => {
    const response = await fetch(`${t.issuer}/logout`, { headers: { accept: "text/html" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    expect(html).toContain("You are signed out");
    expect(html).toContain("/static/style.css");
  });
});

describe("sid in ID Tokens", () => {
  test("stable within a session, different in another session, not the cookie or its hash", async () => {
    const first = await sign_in(t, rp);
    const second = await sign_in(t, rp, first.browser);
    const other = await sign_in(t, rp);
    expect(typeof first.claims.sid).toBe("string");
    expect(second.claims.sid).toBe(first.claims.sid);
    expect(other.claims.sid).not.toBe(first.claims.sid);
    const cookie = session_of(first.browser)!;
    expect(first.claims.sid).toBe(session_sid(sha256(cookie)));
    expect([cookie, sha256(cookie)]).not.toContain(first.claims.sid as string);
  });
});

describe("logout with a hint of the current session", () => {
  test("redirects to the registered URI with state, ends the session; prompt=none then gets login_required", async () => {
    const { id_token, access_token, browser } = await sign_in(t, rp);
    const old_cookie = session_of(browser)!;
    const response = await browser.get(end_session_url(rp, { id_token_hint: id_token, post_logout_redirect_uri: BYE, state: "bye-state" }));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`${BYE}?state=bye-state`);
    expect(response.headers.getSetCookie().join("\n")).toMatch(/idp_session=;.*Max-Age=0/i);
    expect(session_of(browser)).toBeUndefined();
    expect(await t.store.get_session(sha256(old_cookie))).toBeNull();

    expect((await silent_authorize(rp, browser)).searchParams.get("error")).toBe("login_required");
    // The old cookie is worth nothing now either.
    browser.cookies.set("idp_session", old_cookie);
    expect((await silent_authorize(rp, browser)).searchParams.get("error")).toBe("login_required");
    // Access tokens of the session are revoked.
    expect((await fetch(`${t.issuer}/userinfo`, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(401);
    const [event] = await t.store.list_audit_events({ user_id: t.user.id, type: "logout", limit: 1 });
    expect(event).toMatchObject({ outcome: "success", client_id: rp.client_id });
    expect(JSON.stringify(event)).not.toContain(id_token);
  });

  test("a POSTed logout request answers 303; the registered URI's own query is kept", async () => {
    const { id_token, browser } = await sign_in(t, rp);
    const response = await browser.post(`${t.issuer}/logout`, { id_token_hint: id_token, post_logout_redirect_uri: "https://rp.example.com/bye?from=idp", state: "s p" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("https://rp.example.com/bye?from=idp&state=s+p");
  });

  test("without post_logout_redirect_uri: the signed-out page", async () => {
    const { id_token, browser } = await sign_in(t, rp);
    const response = await browser.get(end_session_url(rp, { id_token_hint: id_token }));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("You are signed out");
    expect((await silent_authorize(rp, browser)).searchParams.get("error")).toBe("login_required");
  });

  test("an expired hint is still accepted (RP-Initiated Logout §4)", async () => {
    const { id_token, browser } = await sign_in(t, rp);
    t.clock.advance(t.config.tokens.id_token_ttl + 60);
    try {
      const response = await browser.get(end_session_url(rp, { id_token_hint: id_token, post_logout_redirect_uri: BYE }));
      expect(response.headers.get("location")).toBe(BYE);
    } finally {
      t.clock.advance(-(t.config.tokens.id_token_ttl + 60));
    }
  });

  test("not signed in any more: straight to the registered URI", async () => {
    const { id_token } = await sign_in(t, rp);
    const response = await new Browser().get(end_session_url(rp, { id_token_hint: id_token, post_logout_redirect_uri: BYE, state: "x" }));
    expect(response.headers.get("location")).toBe(`${BYE}?state=x`);
  });
});

describe("refused requests: an error page, never a redirect, and the user stays signed in", () => {
  test("an unregistered post_logout_redirect_uri", async () => {
    const { id_token, browser } = await sign_in(t, rp);
    await expect_error_page(await browser.get(end_session_url(rp, { id_token_hint: id_token, post_logout_redirect_uri: "https://evil.example/steal" })), /not registered/);
    expect((await silent_authorize(rp, browser)).searchParams.get("code")).not.toBeNull();
  });

  test("a post_logout_redirect_uri that only nearly matches (exact comparison)", async () => {
    const { id_token, browser } = await sign_in(t, rp);
    for (const uri of [`${BYE}/`, "https://RP.example.com/bye", `${BYE}?x=1`, "https://rp.example.com/by"]) {
      await expect_error_page(await browser.get(end_session_url(rp, { id_token_hint: id_token, post_logout_redirect_uri: uri })), /not registered/);
    }
  });

  test("another client's registered URI", async () => {
    const other = await make_rp(t, { post_logout_redirect_uris: ["https://other.example.com/bye"] });
    const { id_token, browser } = await sign_in(t, rp);
    await expect_error_page(await browser.get(end_session_url(rp, { id_token_hint: id_token, post_logout_redirect_uri: "https://other.example.com/bye" })), /not registered/);
    expect(other.client_id).not.toBe(rp.client_id);
  });

  test("a hint issued to another client than client_id", async () => {
    const other = await make_rp(t);
    const { id_token, browser } = await sign_in(t, rp);
    // openid-client always sends its own client_id: the hint's aud is rp, client_id is other.
    await expect_error_page(await browser.get(end_session_url(other, { id_token_hint: id_token, post_logout_redirect_uri: BYE })), /not issued to/);
    expect(session_of(browser)).toBeDefined();
  });

  test("post_logout_redirect_uri without client_id or id_token_hint", async () => {
    const url = new URL(`${t.issuer}/logout`);
    url.searchParams.set("post_logout_redirect_uri", BYE);
    await expect_error_page(await new Browser().get(url.href), /which application/);
  });

  test("a hint that is not ours, or tampered with", async () => {
    const { id_token, browser } = await sign_in(t, rp);
    const [header, payload, signature] = id_token.split(".");
    const forged_payload = Buffer.from(JSON.stringify({ ...jwt_claims(id_token), sub: "someone-else" })).toString("base64url");
    for (const hint of [`${header}.${forged_payload}.${signature}`, "not-a-jwt", `${header}.${payload}.${signature!.slice(0, -4)}AAAA`]) {
      await expect_error_page(await browser.get(end_session_url(rp, { id_token_hint: hint, post_logout_redirect_uri: BYE })), /not issued by this service/);
    }
  });

  test("an unknown client_id", async () => {
    const url = new URL(`${t.issuer}/logout`);
    url.searchParams.set("client_id", "no-such-client");
    await expect_error_page(await new Browser().get(url.href), /not registered/);
  });

  test("a repeated parameter", async () => {
    await expect_error_page(await new Browser().get(`${t.issuer}/logout?state=a&state=b`), /more than once/);
  });
});

describe("the confirmation page", () => {
  async function confirmation(browser: Browser, parameters: Record<string, string>) {
    const response = await browser.get(end_session_url(rp, parameters));
    expect(response.status).toBe(200);
    const html = await response.text();
    return { response, html, csrf: hidden_field(html, "csrf")!, action: form_action(html)! };
  }

  test("no hint: asks, with two buttons and a CSP that lets the form lead back to the client", async () => {
    const { browser } = await sign_in(t, rp);
    const { response, html, csrf, action } = await confirmation(browser, { post_logout_redirect_uri: BYE, state: "st" });
    expect(html).toContain("Sign out?");
    expect(html).toContain("Log out");
    expect(html).toContain("Stay signed in");
    expect(html).toContain("Logout App");
    expect(html).not.toContain("id_token_hint");
    expect(csrf.length).toBeGreaterThan(20);
    expect(action).toBe(`${t.issuer}/logout/confirm`);
    expect(response.headers.get("content-security-policy")).toContain("form-action 'self' https://rp.example.com");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    // Nothing has happened yet.
    expect((await silent_authorize(rp, browser)).searchParams.get("code")).not.toBeNull();
  });

  test("a hint of an earlier session, or for another user, asks too", async () => {
    const earlier = await sign_in(t, rp);
    const browser = new Browser();
    await sign_in(t, rp, browser);
    expect((await confirmation(browser, { id_token_hint: earlier.id_token })).html).toContain("Sign out?");
    const bob = await t.add_user({ username: `bob-${crypto.randomUUID().slice(0, 8)}` });
    const bobs = await sign_in(t, rp, new Browser(), bob.username);
    expect(bobs.claims.sub).toBe(bob.id);
    expect((await confirmation(browser, { id_token_hint: bobs.id_token })).html).toContain("Sign out?");
  });

  test("POST without a CSRF token, or with another browser's: 403, still signed in", async () => {
    const { browser } = await sign_in(t, rp);
    const { html } = await confirmation(browser, { post_logout_redirect_uri: BYE, state: "st" });
    const fields = { client_id: hidden_field(html, "client_id")!, post_logout_redirect_uri: BYE, state: "st", decision: "logout" };
    const { browser: attacker } = await sign_in(t, rp);
    const foreign = (await confirmation(attacker, { post_logout_redirect_uri: BYE, state: "st" })).csrf;

    for (const csrf of [undefined, "", foreign]) {
      const response = await browser.post(`${t.issuer}/logout/confirm`, csrf === undefined ? fields : { ...fields, csrf });
      expect(response.status).toBe(403);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.text()).toContain("This form has expired");
    }
    expect((await silent_authorize(rp, browser)).searchParams.get("code")).not.toBeNull();
  });

  test("a CSRF token is bound to the values: changing state is refused", async () => {
    const { browser } = await sign_in(t, rp);
    const { html, csrf } = await confirmation(browser, { post_logout_redirect_uri: BYE, state: "st" });
    const response = await browser.post(`${t.issuer}/logout/confirm`, {
      csrf,
      client_id: hidden_field(html, "client_id")!,
      post_logout_redirect_uri: BYE,
      state: "other",
      decision: "logout",
    });
    expect(response.status).toBe(403);
  });

  test("“Stay signed in” changes nothing", async () => {
    const { browser } = await sign_in(t, rp);
    const { html, csrf, action } = await confirmation(browser, { post_logout_redirect_uri: BYE, state: "st" });
    const response = await browser.post(action, { csrf, client_id: hidden_field(html, "client_id")!, post_logout_redirect_uri: BYE, state: "st", decision: "stay" });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("You are still signed in");
    expect((await silent_authorize(rp, browser)).searchParams.get("code")).not.toBeNull();
  });

  test("“Log out” ends the session and redirects (303) with state", async () => {
    const { browser } = await sign_in(t, rp);
    const { html, csrf, action } = await confirmation(browser, { post_logout_redirect_uri: BYE, state: "st" });
    const response = await browser.post(action, { csrf, client_id: hidden_field(html, "client_id")!, post_logout_redirect_uri: BYE, state: "st", decision: "logout" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${BYE}?state=st`);
    expect((await silent_authorize(rp, browser)).searchParams.get("error")).toBe("login_required");
  });

  test("“Log out” without a redirect URI shows the signed-out page", async () => {
    const { browser } = await sign_in(t, rp);
    const raw = await browser.get(`${t.issuer}/logout`);
    const html = await raw.text();
    const response = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, decision: "logout" });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("You are signed out");
    expect((await silent_authorize(rp, browser)).searchParams.get("error")).toBe("login_required");
  });
});
