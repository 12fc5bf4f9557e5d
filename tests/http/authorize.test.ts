/**
 * /authorize: where errors go (page vs redirect, OIDC Core §3.1.2.6), request checks, PKCE rules,
 * prompt and max_age, and redirect statuses.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser } from "../helpers/browser.ts";
import { authorization_url, get_code, pkce, redeem } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

const html = { accept: "text/html" };

async function expect_error_page(response: Response, status: number, words: string): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get("location")).toBeNull();
  expect(response.headers.get("content-type")).toStartWith("text/html");
  const body = await response.text();
  expect(body).toContain(words);
  expect(body).not.toMatch(/\n\s+at /);
  return body;
}

/** The error a redirect carries back to the client, with state and iss (RFC 9207). */
function expect_error_redirect(response: Response, error: string): URL {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  expect(location.searchParams.get("error")).toBe(error);
  expect(location.searchParams.get("error_description")).toBeTruthy();
  expect(location.searchParams.get("state")).toBe("st-123");
  expect(location.searchParams.get("iss")).toBe(t.issuer);
  expect(location.searchParams.get("code")).toBeNull();
  return location;
}

const get = (url: string) => fetch(url, { redirect: "manual", headers: html });
const challenge = () => {
  const p = pkce();
  return { code_challenge: p.challenge, code_challenge_method: "S256" };
};

describe("errors shown as a page, never redirected", () => {
  test("unknown client → error page (no redirect)", async () => {
    await expect_error_page(await get(authorization_url(t, challenge(), "no-such-client")), 400, "Unknown application");
  });

  test("unregistered redirect URI → error page", async () => {
    await expect_error_page(await get(authorization_url(t, { ...challenge(), redirect_uri: "https://evil.example.com/callback" })), 400, "not registered");
  });

  test("redirect URI that only differs by a trailing slash is not registered (exact match)", async () => {
    await expect_error_page(await get(authorization_url(t, { ...challenge(), redirect_uri: `${REDIRECT_URI}/` })), 400, "not registered");
  });

  test("missing client_id → error page", async () => {
    await expect_error_page(await get(authorization_url(t, { client_id: null })), 400, "incomplete");
  });

  test("client_id twice → error page", async () => {
    const url = `${authorization_url(t, challenge())}&client_id=${t.client.client_id}`;
    await expect_error_page(await get(url), 400, "more than once");
  });

  test("a JSON client gets the same error as JSON", async () => {
    const response = await fetch(authorization_url(t, challenge(), "no-such-client"), { redirect: "manual", headers: { accept: "application/json" } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_client" });
  });
});

describe("errors redirected to the verified redirect URI with state and iss", () => {
  test("missing response_type → invalid_request + state + iss", async () => {
    expect_error_redirect(await get(authorization_url(t, { ...challenge(), response_type: null })), "invalid_request");
  });

  test("response_type token → unsupported_response_type", async () => {
    expect_error_redirect(await get(authorization_url(t, { ...challenge(), response_type: "token" })), "unsupported_response_type");
  });

  test("scope twice → invalid_request (RFC 6749 §3.1)", async () => {
    const location = expect_error_redirect(await get(`${authorization_url(t, challenge())}&scope=openid`), "invalid_request");
    expect(location.searchParams.get("error_description")).toContain("scope");
  });

  test("plain challenge method refused", async () => {
    const location = expect_error_redirect(await get(authorization_url(t, { code_challenge: pkce().verifier, code_challenge_method: "plain" })), "invalid_request");
    expect(location.searchParams.get("error_description")).toContain("S256");
  });

  test("code_challenge without a method (= plain, RFC 7636 §4.3) refused", async () => {
    expect_error_redirect(await get(authorization_url(t, { code_challenge: pkce().challenge })), "invalid_request");
  });

  test("malformed code_challenge refused", async () => {
    expect_error_redirect(await get(authorization_url(t, { code_challenge: "short", code_challenge_method: "S256" })), "invalid_request");
  });

  test("public client without PKCE refused", async () => {
    const { client } = await t.add_client({ token_endpoint_auth_method: "none" });
    const location = expect_error_redirect(await get(authorization_url(t, {}, client.client_id)), "invalid_request");
    expect(location.searchParams.get("error_description")).toContain("PKCE");
  });

  test("missing scope → invalid_scope (RFC 6749 §3.3)", async () => {
    expect_error_redirect(await get(authorization_url(t, { ...challenge(), scope: null })), "invalid_scope");
  });

  test("a scope outside the client's registered scope → invalid_scope", async () => {
    const { client } = await t.add_client({ scope: "openid profile" });
    const location = expect_error_redirect(await get(authorization_url(t, { ...challenge(), scope: "openid email" }, client.client_id)), "invalid_scope");
    expect(location.searchParams.get("error_description")).toContain("email");
  });

  test("a request object that is not a JWT → invalid_request_object", async () => {
    expect_error_redirect(await get(authorization_url(t, { ...challenge(), request: "eyJ.eyJ.sig" })), "invalid_request_object");
  });

  test("response_mode fragment → invalid_request (query and form_post are supported)", async () => {
    expect_error_redirect(await get(authorization_url(t, { ...challenge(), response_mode: "fragment" })), "invalid_request");
  });

  test("prompt=none without a session → login_required", async () => {
    expect_error_redirect(await get(authorization_url(t, { ...challenge(), prompt: "none" })), "login_required");
  });

  test("prompt=none with another value → invalid_request", async () => {
    expect_error_redirect(await get(authorization_url(t, { ...challenge(), prompt: "none login" })), "invalid_request");
  });

  test("the redirect URI's own query is kept", async () => {
    const uri = "https://rp.example.com/cb?tenant=a%20b";
    const { client } = await t.add_client({ redirect_uris: [uri] });
    const response = await get(authorization_url(t, { ...challenge(), redirect_uri: uri, response_type: null }, client.client_id));
    const location = response.headers.get("location")!;
    expect(location).toStartWith(`${uri}&error=invalid_request`);
  });
});

describe("accepted requests", () => {
  test("unknown parameter ignored", async () => {
    const response = await get(authorization_url(t, { ...challenge(), frobnicate: "yes", ui_locales: "fr" }));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/\/interaction\/[A-Za-z0-9_-]{43}\/login$/);
  });

  test("GET answers 302 to the login page and binds the interaction with a cookie", async () => {
    const response = await get(authorization_url(t, challenge()));
    expect(response.status).toBe(302);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith("idp_interaction="))!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure"); // http issuer in tests
  });

  test("303 after POST (never 307)", async () => {
    const form = new URLSearchParams(new URL(authorization_url(t, challenge())).searchParams);
    const response = await fetch(`${t.url}/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", ...html },
      body: form.toString(),
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toContain("/interaction/");
  });

  test("303 after POST for errors sent to the client too", async () => {
    const form = new URLSearchParams(new URL(authorization_url(t, { ...challenge(), response_type: null })).searchParams);
    const response = await fetch(`${t.url}/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });

  test("unknown scopes are ignored for a client without a scope list, and the token response says what was granted", async () => {
    const { code, pkce: p } = await get_code(t, { scope: "openid email calendar.read" });
    const body = (await (await redeem(t, code, p!.verifier)).json()) as { scope: string };
    expect(body.scope).toBe("openid email");
  });

  test("with a session, prompt=login and max_age=0 ask for the password again", async () => {
    const browser = new Browser();
    await get_code(t, {}, { browser });
    for (const params of [{ prompt: "login" }, { max_age: "0" }] as Record<string, string>[]) {
      t.clock.advance(1);
      const response = await browser.get(authorization_url(t, { ...challenge(), ...params }));
      expect(response.headers.get("location")).toEndWith("/login");
    }
    // Without them the session is reused: straight back with a code.
    const response = await browser.get(authorization_url(t, challenge()));
    expect(new URL(response.headers.get("location")!).searchParams.get("code")).toBeTruthy();
  });

  test("prompt=consent asks again even when granted; prompt=none with a session and a grant answers at once", async () => {
    const browser = new Browser();
    await get_code(t, {}, { browser });
    const again = await browser.get(authorization_url(t, { ...challenge(), prompt: "consent" }));
    expect(again.headers.get("location")).toEndWith("/consent");
    const silent = await browser.get(authorization_url(t, { ...challenge(), prompt: "none" }));
    const location = new URL(silent.headers.get("location")!);
    expect(location.searchParams.get("code")).toBeTruthy();
    expect(location.searchParams.get("state")).toBe("st-123");
  });
});
