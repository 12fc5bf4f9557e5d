/**
 * The login and consent pages: no user enumeration, CSRF and browser binding, consent memory,
 * deny, redirect statuses, security headers and the error page.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Browser, authorize, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, get_code, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

/** Starts an authorization in `browser` and returns the login page's form. */
async function open_login(browser: Browser, client_id = t.client.client_id): Promise<{ action: string; csrf: string; html: string; response: Response }> {
  const p = pkce();
  const start = await browser.get(authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }, client_id));
  const response = await browser.get(start.headers.get("location")!);
  const html = await response.text();
  return { action: form_action(html)!, csrf: hidden_field(html, "csrf")!, html, response };
}

describe("login page", () => {
  test("labelled username and password inputs, a CSRF field, the client's name", async () => {
    const { html, response } = await open_login(new Browser());
    expect(response.status).toBe(200);
    expect(html).toContain('<label for="username">');
    expect(html).toContain('<label for="password">');
    expect(html).toContain('autocomplete="current-password"');
    expect(html).toContain("Test App");
    expect(html).toContain('<link rel="stylesheet" href="');
    // No inline script: only our static files (the passkey helper and static/passkeys.js).
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    expect(scripts.every((tag) => tag.startsWith(`<script src="${t.issuer}/static/`))).toBe(true);
  });

  test("wrong password → same 200 page with the message; unknown user gets the identical page", async () => {
    const a = new Browser();
    const login_a = await open_login(a);
    const wrong = await a.post(login_a.action, { csrf: login_a.csrf, username: "alice", password: "nope" });
    const c = new Browser();
    const login_c = await open_login(c);
    const nobody = await c.post(login_c.action, { csrf: login_c.csrf, username: "nobody-here", password: "nope" });
    for (const response of [wrong, nobody]) {
      expect(response.status).toBe(200);
      expect(response.headers.get("set-cookie")).toBeNull();
    }
    const normalize = (html: string) =>
      html
        .replace(/value="[^"]*"/g, 'value=""')
        .replace(/\/interaction\/[^/"]+\//g, "/interaction/ID/")
        .replace(/interaction=[A-Za-z0-9_-]+/g, "interaction=ID");
    const [wrong_html, nobody_html] = [normalize(await wrong.text()), normalize(await nobody.text())];
    expect(wrong_html).toContain("Wrong username or password");
    expect(nobody_html).toBe(wrong_html);
  });

  test("a wrong password keeps the interaction: the right one then works", async () => {
    const browser = new Browser();
    const login = await open_login(browser);
    await browser.post(login.action, { csrf: login.csrf, username: "alice", password: "nope" });
    const ok = await browser.post(login.action, { csrf: login.csrf, username: "alice", password: t.password });
    expect(ok.status).toBe(303);
    expect(ok.headers.getSetCookie().some((c) => c.startsWith("idp_session=") && c.includes("HttpOnly") && c.includes("SameSite=Lax"))).toBe(true);
  });

  test("CSRF: login POST without a token → 403", async () => {
    const browser = new Browser();
    const login = await open_login(browser);
    const response = await browser.post(login.action, { username: "alice", password: t.password });
    expect(response.status).toBe(403);
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  test("CSRF: login POST with a foreign token (another interaction's) → 403", async () => {
    const victim = new Browser();
    const attacker = new Browser();
    const victim_login = await open_login(victim);
    const attacker_login = await open_login(attacker);
    const response = await victim.post(victim_login.action, { csrf: attacker_login.csrf, username: "alice", password: t.password });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("This form has expired");
  });

  test("an interaction cannot be completed from another browser → 403 page", async () => {
    const first = new Browser();
    const login = await open_login(first);
    const other = new Browser();
    const page = await other.get(login.action);
    expect(page.status).toBe(403);
    const post = await other.post(login.action, { csrf: login.csrf, username: "alice", password: t.password });
    expect(post.status).toBe(403);
  });

  test("an expired interaction → 400 page", async () => {
    const browser = new Browser();
    const login = await open_login(browser);
    t.clock.advance(t.config.tokens.interaction_ttl + 1);
    const response = await browser.post(login.action, { csrf: login.csrf, username: "alice", password: t.password });
    t.clock.advance(-(t.config.tokens.interaction_ttl + 1));
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("expired");
  });
});

describe("consent page", () => {
  test("names the client, describes scopes in plain words, has allow and deny buttons", async () => {
    const { client } = await t.add_client({
      client_name: "Photo <Book>",
      logo_uri: "https://rp.example.com/logo.png",
      policy_uri: "https://rp.example.com/privacy",
      tos_uri: "javascript:alert(1)",
    });
    const browser = new Browser();
    const p = pkce();
    const start = await browser.get(authorization_url(t, { scope: "openid email phone", code_challenge: p.challenge, code_challenge_method: "S256" }, client.client_id));
    const login_page = await browser.get(start.headers.get("location")!);
    const login_html = await login_page.text();
    const to_consent = await browser.post(form_action(login_html)!, { csrf: hidden_field(login_html, "csrf")!, username: "alice", password: t.password });
    expect(to_consent.status).toBe(303);
    const consent = await browser.get(to_consent.headers.get("location")!);
    const html = await consent.text();
    expect(html).toContain("Photo &lt;Book&gt;");
    expect(html).not.toContain("Photo <Book>");
    expect(html).toContain("See your email address");
    expect(html).toContain("See your phone number");
    expect(html).toContain('src="https://rp.example.com/logo.png"');
    expect(html).toContain('href="https://rp.example.com/privacy"');
    expect(html).not.toContain("javascript:");
    expect(html).toContain('name="decision" value="allow"');
    expect(html).toContain('name="decision" value="deny"');
    expect(html).toContain("Alice Liddell");
  });

  test("deny at consent → access_denied with state and iss", async () => {
    const { callback, steps } = await authorize(
      new Browser(),
      authorization_url(t, {
        ...(() => {
          const p = pkce();
          return { code_challenge: p.challenge, code_challenge_method: "S256" };
        })(),
        scope: "openid address",
      }),
      { password: t.password, decision: "deny", callback_prefix: REDIRECT_URI },
    );
    expect(steps).toEqual(["login", "consent"]);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("state")).toBe("st-123");
    expect(callback.searchParams.get("iss")).toBe(t.issuer);
    expect(callback.searchParams.get("code")).toBeNull();
  });

  test("consent skipped for a second authorization when already granted (new browser, new login)", async () => {
    const { client } = await t.add_client({ client_name: "Remembered" });
    const p = pkce();
    const url = () => authorization_url(t, { scope: "openid profile", code_challenge: p.challenge, code_challenge_method: "S256" }, client.client_id);
    const first = await authorize(new Browser(), url(), { password: t.password, callback_prefix: REDIRECT_URI });
    expect(first.steps).toEqual(["login", "consent"]);
    const second = await authorize(new Browser(), url(), { password: t.password, callback_prefix: REDIRECT_URI });
    expect(second.steps).toEqual(["login"]);
    expect(second.callback.searchParams.get("code")).toBeTruthy();
    // A scope not granted yet asks again.
    const more = await authorize(
      new Browser(),
      authorization_url(t, { scope: "openid profile email", code_challenge: p.challenge, code_challenge_method: "S256" }, client.client_id),
      { password: t.password, callback_prefix: REDIRECT_URI },
    );
    expect(more.steps).toEqual(["login", "consent"]);
  });

  test("a first-party client (skip_consent) never shows the consent page", async () => {
    const { client } = await t.add_client({ skip_consent: true });
    const { callback } = await get_code(t, {}, { client_id: client.client_id });
    expect(callback.searchParams.get("code")).toBeTruthy();
  });

  test("303 after every POST (never 307), and a double-submitted consent is refused", async () => {
    const { client } = await t.add_client({ client_name: "Statuses" });
    const browser = new Browser();
    const login = await open_login(browser, client.client_id);
    const after_login = await browser.post(login.action, { csrf: login.csrf, username: "alice", password: t.password });
    expect(after_login.status).toBe(303);
    const consent_html = await (await browser.get(after_login.headers.get("location")!)).text();
    const form = { csrf: hidden_field(consent_html, "csrf")!, decision: "allow" };
    const after_consent = await browser.post(form_action(consent_html)!, form);
    expect(after_consent.status).toBe(303);
    expect(after_consent.headers.get("location")).toStartWith(`${REDIRECT_URI}?code=`);
    const again = await browser.post(form_action(consent_html)!, form);
    expect(again.status).toBe(400);
    expect(browser.history.some((h) => h.status === 307 || h.status === 308)).toBe(false);
  });

  test("consent POST without a decision → 400 page; without CSRF → 403", async () => {
    const { client } = await t.add_client({ client_name: "Decisions" });
    const browser = new Browser();
    const login = await open_login(browser, client.client_id);
    const after_login = await browser.post(login.action, { csrf: login.csrf, username: "alice", password: t.password });
    const consent_url = after_login.headers.get("location")!;
    const consent_html = await (await browser.get(consent_url)).text();
    expect((await browser.post(consent_url, { decision: "allow" })).status).toBe(403);
    expect((await browser.post(consent_url, { csrf: hidden_field(consent_html, "csrf")! })).status).toBe(400);
  });
});

describe("security headers and the error page", () => {
  test("pages carry CSP (form-action allows the client), frame and referrer protection, no-store", async () => {
    const { response } = await open_login(new Browser());
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("img-src 'self' data:;");
    expect(csp).toContain("form-action 'self' https://rp.example.com");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("strict-transport-security")).toBeNull(); // http issuer
  });

  test("unknown page → a 404 page in plain words, with the security headers", async () => {
    const response = await fetch(`${t.url}/nope`, { headers: { accept: "text/html" } });
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(html).toContain("Page not found");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
  });

  test("a server error page shows no stack", async () => {
    const { client } = await t.add_client({ client_name: "Broken" });
    const browser = new Browser();
    const login = await open_login(browser, client.client_id);
    const real = t.store.get_user_by_username.bind(t.store);
    t.store.get_user_by_username = async () => {
      throw new Error("database exploded at secret/path.ts:12");
    };
    try {
      const response = await browser.post(login.action, { csrf: login.csrf, username: "alice", password: "x" });
      expect(response.status).toBe(500);
      const html = await response.text();
      expect(html).toContain("Something went wrong on our side");
      expect(html).not.toContain("exploded");
      expect(html).not.toContain("secret/path");
    } finally {
      t.store.get_user_by_username = real;
    }
  });
});

describe("login throttling", () => {
  test("after 10 failed attempts for one username from one address, even the right password gets 429", async () => {
    await t.add_user({ username: "target" });
    const browser = new Browser();
    const login = await open_login(browser);
    for (let i = 0; i < 10; i++) {
      const response = await browser.post(login.action, { csrf: login.csrf, username: "target", password: `guess-${i}` });
      expect(response.status).toBe(200);
    }
    const blocked = await browser.post(login.action, { csrf: login.csrf, username: "target", password: t.password });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await blocked.text()).toContain("Too many attempts");
    // Another username from the same address is not affected.
    const other = await browser.post(login.action, { csrf: login.csrf, username: "alice", password: t.password });
    expect(other.status).toBe(303);
    // The window ends.
    t.clock.advance(15 * 60 + 1);
    const fresh = new Browser();
    const later = await open_login(fresh);
    expect((await fresh.post(later.action, { csrf: later.csrf, username: "target", password: t.password })).status).toBe(303);
  });
});

describe("re-authentication cannot be skipped", () => {
  test("with prompt=login, going straight to the consent page sends the browser back to login", async () => {
    const { client } = await t.add_client({ client_name: "Fresh login" });
    const browser = new Browser();
    await get_code(t, {}, { browser, client_id: client.client_id });
    const p = pkce();
    const start = await browser.get(authorization_url(t, { prompt: "login", code_challenge: p.challenge, code_challenge_method: "S256" }, client.client_id));
    const login_url = start.headers.get("location")!;
    expect(login_url).toEndWith("/login");
    const consent = await browser.get(login_url.replace(/\/login$/, "/consent"));
    expect(consent.status).toBe(302);
    expect(consent.headers.get("location")).toBe(login_url);
  });
});
