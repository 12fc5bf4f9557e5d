/**
 * The whole provider on PostgreSQL: the OpenID flow of tests/e2e run with openid-client against
 * a server whose store is a fresh PostgreSQL database (discovery, PKCE, login, consent, code
 * exchange with ID Token validation, userinfo, single sign-on, code replay).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { Browser, authorize } from "../helpers/browser.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { create_temp_database, use_postgres, type TempDatabase } from "../store/pg.ts";

const insecure = { execute: [client.allowInsecureRequests] };

if (await use_postgres()) {
  describe("the OpenID flow on a PostgreSQL-backed provider", () => {
    let db: TempDatabase;
    let t: TestProvider;
    let config: client.Configuration;

    beforeAll(async () => {
      db = await create_temp_database();
      t = await start_provider({ database_url: db.url });
      config = await client.discovery(new URL(t.issuer), t.client.client_id, undefined, client.ClientSecretBasic(t.secret), insecure);
    }, 30_000);
    afterAll(async () => {
      await t?.stop();
      await db?.drop();
    });

    async function run_flow(browser: Browser, scope = "openid profile email") {
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce,
      });
      const { callback, steps } = await authorize(browser, url.href, { password: t.password, callback_prefix: REDIRECT_URI });
      const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
      const claims = tokens.claims()!;
      const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      return { tokens, claims, userinfo, steps, callback };
    }

    test("the store is PostgreSQL", () => {
      expect(t.store.kind).toBe("postgres");
      expect(t.provider.store.kind).toBe("postgres");
    });

    test("login, consent, code exchange (ID Token validated against the JWKS), userinfo", async () => {
      const { claims, userinfo, steps } = await run_flow(new Browser());
      expect(steps).toEqual(["login", "consent"]);
      expect(claims.iss).toBe(t.issuer);
      expect(claims.sub).toBe(t.user.id);
      expect(claims.email).toBe("alice@example.com");
      expect(userinfo.name).toBe("Alice Liddell");
    });

    test("the session and the grant live in the database: the second authorization asks nothing", async () => {
      const browser = new Browser();
      await run_flow(browser);
      const second = await run_flow(browser, "openid email");
      expect(second.steps).toEqual([]);
      expect(second.claims.sub).toBe(t.user.id);
    });

    test("a code works once: the replay is invalid_grant and revokes the first access token", async () => {
      const { tokens, callback } = await run_flow(new Browser(), "openid");
      const replay = await fetch(`${t.url}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${t.client.client_id}:${t.secret}`)}` },
        body: new URLSearchParams({ grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: REDIRECT_URI }),
      });
      expect(replay.status).toBe(400);
      expect(((await replay.json()) as { error: string }).error).toBe("invalid_grant");
      const info = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(info.status).toBe(401);
    });

    test("readyz: database ok", async () => {
      const ready = await fetch(`${t.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready", database: "ok", keys: "ok" });
    });
  });
}
