/**
 * The device authorization grant (RFC 8628) through real HTTP: openid-client 6 as the device
 * (initiateDeviceAuthorization, pollDeviceAuthorizationGrant), the user's part with the tests'
 * HTTP browser (the /device page, sign-in, the device's consent page). The refusals the spec
 * names: authorization_pending, slow_down (and the interval raised by 5 seconds),
 * access_denied, expired_token, a used device code, an approval whose user was disabled since;
 * wrong user codes limited per address; a client not registered for the grant. On SQLite, and on PostgreSQL when it runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { create_temp_database, use_postgres, type TempDatabase } from "../store/pg.ts";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const insecure = { execute: [client.allowInsecureRequests] };

function device_suite(postgres: boolean): void {
  describe(`device authorization grant (RFC 8628), ${postgres ? "PostgreSQL" : "SQLite"}`, () => {
    let t: TestProvider;
    let db: TempDatabase | null = null;
    let tv: { client_id: string };
    let config: client.Configuration;
    let confidential: { client_id: string; secret: string };

    beforeAll(async () => {
      db = postgres ? await create_temp_database() : null;
      // A 1-second interval keeps openid-client's polling short; 5 wrong user codes per address.
      t = await start_provider({ config: { device: { interval: 1, user_code_attempts: 5 }, registration: "open" }, ...(db ? { database_url: db.url } : {}) });
      tv = (
        await t.add_client({
          client_name: "Living Room TV",
          token_endpoint_auth_method: "none",
          redirect_uris: [],
          grant_types: [DEVICE_GRANT, "refresh_token"],
          response_types: [],
        })
      ).client;
      config = await client.discovery(new URL(t.issuer), tv.client_id, undefined, client.None(), insecure);
      const added = await t.add_client({
        client_name: "Build Agent",
        token_endpoint_auth_method: "client_secret_basic",
        redirect_uris: [],
        grant_types: [DEVICE_GRANT],
        response_types: [],
      });
      confidential = { client_id: added.client.client_id, secret: added.secret! };
    });
    afterAll(async () => {
      await t?.stop();
      await db?.drop();
    });

    /** The user's part: /device (from verification_uri_complete or typed), sign-in when needed, the consent page. */
    async function enter_code(browser: Browser, url: string, user_code: string): Promise<Response> {
      const page = await browser.get(url);
      expect(page.status).toBe(200);
      const html = await page.text();
      return browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, user_code });
    }

    async function sign_in_if_asked(browser: Browser, response: Response, username = "alice"): Promise<string> {
      let location = response.headers.get("location")!;
      if (location.endsWith("/login")) {
        const html = await (await browser.get(location)).text();
        const signed = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username, password: t.password });
        expect(signed.status).toBe(303);
        location = signed.headers.get("location")!;
      }
      expect(location).toEndWith("/consent");
      return location;
    }

    async function decide(browser: Browser, consent_url: string, decision: "allow" | "deny"): Promise<{ page: string; answer: Response }> {
      const page = await (await browser.get(consent_url)).text();
      const answer = await browser.post(form_action(page)!, { csrf: hidden_field(page, "csrf")!, decision });
      return { page, answer };
    }

    async function token_request(device_code: string, auth: { client_id: string; secret?: string } = tv): Promise<{ status: number; body: Record<string, unknown> }> {
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
      const form: Record<string, string> = { grant_type: DEVICE_GRANT, device_code };
      if (auth.secret !== undefined) headers.authorization = `Basic ${btoa(`${auth.client_id}:${auth.secret}`)}`;
      else form.client_id = auth.client_id;
      const response = await fetch(`${t.url}/token`, { method: "POST", headers, body: new URLSearchParams(form).toString() });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    async function start_device(auth: { client_id: string; secret?: string } = tv, scope = "openid"): Promise<{ status: number; body: Record<string, unknown> }> {
      const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
      const form: Record<string, string> = { scope };
      if (auth.secret !== undefined) headers.authorization = `Basic ${btoa(`${auth.client_id}:${auth.secret}`)}`;
      else form.client_id = auth.client_id;
      const response = await fetch(`${t.url}/device_authorization`, { method: "POST", headers, body: new URLSearchParams(form).toString() });
      expect(response.headers.get("cache-control")).toContain("no-store");
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    test("discovery advertises the endpoint and the grant type", () => {
      const meta = config.serverMetadata();
      expect(meta.device_authorization_endpoint).toBe(`${t.issuer}/device_authorization`);
      expect(meta.grant_types_supported).toContain(DEVICE_GRANT);
    });

    test("openid-client: the user signs in and approves from verification_uri_complete; the device gets tokens once", async () => {
      const started = await client.initiateDeviceAuthorization(config, { scope: "openid profile offline_access" });
      expect(started.user_code).toMatch(USER_CODE);
      expect(started.verification_uri).toBe(`${t.issuer}/device`);
      expect(started.verification_uri_complete).toBe(`${t.issuer}/device?user_code=${started.user_code}`);
      expect(started.expires_in).toBe(600);
      expect(started.interval).toBe(1);
      const polling = client.pollDeviceAuthorizationGrant(config, started);

      const browser = new Browser();
      // verification_uri_complete fills the code in; the user still submits it (RFC 8628 §5.4).
      const page = await browser.get(started.verification_uri_complete!);
      const html = await page.text();
      expect(html).toContain('name="user_code"');
      expect(html).toContain(`value="${started.user_code}"`);
      // Typed loosely: lower case, spaces instead of the dash.
      const loose = started.user_code.toLowerCase().replace("-", " ");
      const entered = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, user_code: loose });
      expect(entered.status).toBe(303);
      expect(entered.headers.get("location")).toEndWith("/login");
      const consent_url = await sign_in_if_asked(browser, entered);
      const { page: consent, answer } = await decide(browser, consent_url, "allow");
      expect(consent).toContain("Living Room TV");
      expect(consent).toContain("Is this the code shown on your device?");
      expect(consent).toContain(started.user_code);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain("Device connected");

      const tokens = await polling;
      expect(tokens.token_type).toBe("bearer");
      expect(tokens.scope).toBe("openid profile offline_access");
      expect(typeof tokens.refresh_token).toBe("string");
      const claims = tokens.claims()!;
      expect(claims.sub).toBe(t.user.id);
      expect(claims.aud).toBe(tv.client_id);
      expect(claims.amr).toEqual(["pwd"]);
      expect(typeof claims.auth_time).toBe("number");
      const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      expect(userinfo.name).toBe("Alice Liddell");
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect(typeof refreshed.access_token).toBe("string");

      // RFC 8628 §3.5: a device code yields tokens once.
      const again = await token_request(started.device_code);
      expect(again).toEqual({ status: 400, body: { error: "invalid_grant", error_description: "the device_code was already used" } });
      // The TV is listed with the applications the user allowed (where its access can be removed).
      expect(await (await browser.get(`${t.issuer}/account`)).text()).toContain("Living Room TV");
      // The consent was single use too: the user code no longer matches anything.
      const reused = await enter_code(browser, `${t.issuer}/device`, started.user_code);
      expect(reused.status).toBe(400);
    });

    test("polling: authorization_pending, then slow_down when faster than the interval, which grows by 5 seconds", async () => {
      // Regression (a CI run): with a 1-second interval, two polls straddling a second boundary on a
      // busy machine were "in time"; the provider's clock stands still while this test polls.
      t.clock.freeze();
      const { body } = await start_device(confidential);
      const device_code = String(body.device_code);
      expect(await token_request(device_code, confidential)).toMatchObject({ status: 400, body: { error: "authorization_pending" } });
      expect(await token_request(device_code, confidential)).toMatchObject({ status: 400, body: { error: "slow_down" } });
      // Now 6 seconds: 2 later is still too soon, 7 later is not.
      t.clock.advance(2);
      expect(await token_request(device_code, confidential)).toMatchObject({ status: 400, body: { error: "slow_down" } });
      t.clock.advance(12);
      expect(await token_request(device_code, confidential)).toMatchObject({ status: 400, body: { error: "authorization_pending" } });
      // Another client cannot poll it; a made-up code is invalid_grant.
      expect(await token_request(device_code)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      expect(await token_request("not-a-device-code", confidential)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      t.clock.thaw();
    });

    test("a signed-in user who denies: straight to the consent page, the device gets access_denied", async () => {
      const browser = new Browser();
      // Signed in from a first approval.
      const first = await start_device();
      const consent_url = await sign_in_if_asked(browser, await enter_code(browser, `${t.issuer}/device`, String(first.body.user_code)));
      await decide(browser, consent_url, "allow");

      const { body } = await start_device();
      const entered = await enter_code(browser, `${t.issuer}/device`, String(body.user_code));
      expect(entered.headers.get("location")).toEndWith("/consent");
      const { answer } = await decide(browser, entered.headers.get("location")!, "deny");
      expect(await answer.text()).toContain("Device not connected");
      expect(await token_request(String(body.device_code))).toMatchObject({ status: 400, body: { error: "access_denied" } });
    });

    test("an approval whose user was disabled before the device polled yields nothing: invalid_grant", async () => {
      const user = await t.add_user({ username: `device-leaver-${postgres ? "pg" : "lite"}` });
      const { body } = await start_device();
      const browser = new Browser();
      const consent_url = await sign_in_if_asked(browser, await enter_code(browser, `${t.issuer}/device`, String(body.user_code)), user.username);
      expect((await decide(browser, consent_url, "allow")).answer.status).toBe(200);
      await t.store.update_user(user.id, { status: "disabled" });
      expect(await token_request(String(body.device_code))).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    });

    test("an authorization nobody approved expires: expired_token, and its user code no longer works", async () => {
      const { body } = await start_device();
      t.clock.advance(601);
      expect(await token_request(String(body.device_code))).toMatchObject({ status: 400, body: { error: "expired_token" } });
      const browser = new Browser();
      const entered = await enter_code(browser, `${t.issuer}/device`, String(body.user_code));
      expect(entered.status).toBe(400);
    });

    test("refusals at /device_authorization: a client not registered for the grant, a wrong secret, a scope not allowed", async () => {
      expect(await start_device({ client_id: t.client.client_id, secret: t.secret })).toMatchObject({ status: 400, body: { error: "unauthorized_client" } });
      expect(await start_device({ client_id: confidential.client_id, secret: "wrong" })).toMatchObject({ status: 401, body: { error: "invalid_client" } });
      expect(await start_device(tv, "admin")).toMatchObject({ status: 400, body: { error: "invalid_scope" } });
    });

    test("dynamic registration accepts the grant type: a registered device client starts a device authorization", async () => {
      const registered = await fetch(`${t.url}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Registered TV", grant_types: [DEVICE_GRANT], response_types: [], token_endpoint_auth_method: "none" }),
      });
      expect(registered.status).toBe(201);
      const body = (await registered.json()) as { client_id: string; grant_types: string[] };
      expect(body.grant_types).toEqual([DEVICE_GRANT]);
      const started = await start_device({ client_id: body.client_id });
      expect(started.status).toBe(200);
      expect(String(started.body.user_code)).toMatch(USER_CODE);
    });

    test("the /device form needs its CSRF token", async () => {
      const { body } = await start_device();
      const browser = new Browser();
      await browser.get(`${t.issuer}/device`);
      const forged = await browser.post(`${t.issuer}/device`, { user_code: String(body.user_code) });
      expect(forged.status).toBe(403);
    });

    // Last: it fills this address's window.
    test("wrong user codes are limited per address: after 5, even the right code gets 429", async () => {
      // A fresh window (earlier tests entered stale codes from this address too).
      t.clock.advance(t.config.login_throttle.window_seconds);
      const { body } = await start_device();
      const browser = new Browser();
      for (const wrong of ["BBBB-BBBB", "CCCC-CCCC", "nonsense", "DDDD-DDDD", "FFFF-FFFF"]) {
        expect((await enter_code(browser, `${t.issuer}/device`, wrong)).status).toBe(400);
      }
      const blocked = await enter_code(browser, `${t.issuer}/device`, String(body.user_code));
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      const events = await t.store.list_audit_events({ type: "device_code_throttled" });
      expect(events.length).toBe(1);
    });
  });
}

device_suite(false);
if (await use_postgres()) device_suite(true);
