/**
 * Issue 20 items 5, 6 and 7 through real HTTP, with openid-client (v6) as the relying party:
 * - request objects by reference (OIDC Core §6.2) served by a real loopback server, fetched
 *   through oidc/outbound/fetch.ts (allow-listed loopback in this test), and the refusals: unregistered URL,
 *   failed fetch, too large, request and request_uri together, the setting off;
 * - signed UserInfo (OIDC Core §5.3.2), JWT introspection (RFC 9701), JARM (query.jwt,
 *   fragment.jwt, form_post.jwt, errors too), checked by openid-client / oauth4webapi with
 *   signature verification against our JWKS;
 * - pairwise subjects (OIDC Core §8.1): one sub per sector, the same within a sector, stable
 *   across sign-ins, the same in ID Token, UserInfo, introspection; sector_identifier_uri checked
 *   at registration (Registration §5); public stays the default.
 * The suite runs on SQLite (jwt_responses.test.ts) and PostgreSQL (jwt_responses_postgres.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { UnsecuredJWT, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import * as client from "openid-client";
import { Browser, authorize, hidden_field } from "../helpers/browser.ts";
import { authorization_url, basic, pkce, token_request } from "../helpers/flow.ts";
import { REDIRECT_URI, free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { load_config } from "../../src/app/config.ts";
import { build_discovery } from "../../src/oidc/discovery/metadata.ts";
import { pairwise_sub } from "../../src/oidc/claims/pairwise.ts";

const SALT = "test-pairwise-salt-0123456789abcdefghijklmnop";
const OTHER_REDIRECT = "https://rp.example.com/second";
const FAR_REDIRECT = "https://far.example.net/cb";

/** A fresh database for the provider: its URL, and how to remove it afterwards. */
export type SuiteDatabase = { url: string; drop(): Promise<void> };

export function jwt_responses_suite(label: string, database: () => Promise<SuiteDatabase>): void {
  describe(label, () => {
    let db: SuiteDatabase;
    let t: TestProvider;
    let off: TestProvider;
    let rp: FetchServer;
    let rp_url: string;
    /** What the loopback server answers, by path; each hit is counted. */
    const documents = new Map<string, { body: string; type: string }>();
    const hits: string[] = [];
    /** Logout tokens POSTed to the back-channel logout URI. */
    const logout_tokens: string[] = [];
    let app: { client_id: string; secret: string };
    let jwks: ReturnType<typeof createRemoteJWKSet>;

    beforeAll(async () => {
      const port = await free_port();
      rp_url = `http://127.0.0.1:${port}`;
      rp = await serve_fetch(
        async (request) => {
          const path = new URL(request.url).pathname;
          hits.push(path);
          if (path === "/backchannel" && request.method === "POST") {
            logout_tokens.push(new URLSearchParams(await request.text()).get("logout_token") ?? "");
            return new Response(null, { status: 200 });
          }
          const document = documents.get(path);
          return document === undefined ? new Response("not found", { status: 404 }) : new Response(document.body, { headers: { "content-type": document.type } });
        },
        { port },
      );
      db = await database();
      t = await start_provider({
        database_url: db.url,
        config: { registration: "open", outbound: { allow_http: true, allow: ["127.0.0.1"] }, pairwise: { salt: SALT }, request_uri: { max_bytes: 2048 } },
      });
      off = await start_provider({ config: { registration: "open", request_uri: { enabled: false } } });
      const { client: row, secret } = await t.add_client({
        client_name: "JWT App",
        token_endpoint_auth_method: "client_secret_basic",
        userinfo_signed_response_alg: "ES256",
        introspection_signed_response_alg: "ES256",
        authorization_signed_response_alg: "ES256",
        request_uris: [`${rp_url}/request.jwt`, `${rp_url}/big.jwt`, `${rp_url}/missing.jwt`],
      });
      app = { client_id: row.client_id, secret: secret! };
      jwks = createRemoteJWKSet(new URL(`${t.issuer}/.well-known/jwks.json`));
    }, 30_000);

    afterAll(async () => {
      await rp.stop();
      await t.stop();
      await off.stop();
      await db.drop();
    });

    /** openid-client's configuration for a client of `t`, with signature checks of JWT answers. */
    async function rp_config(client_id: string, secret: string, metadata: Partial<client.ClientMetadata> = {}): Promise<client.Configuration> {
      const config = await client.discovery(new URL(t.issuer), client_id, metadata, client.ClientSecretBasic(secret), { execute: [client.allowInsecureRequests] });
      client.enableNonRepudiationChecks(config);
      return config;
    }

    /** A full sign-in by openid-client; returns the validated token response. */
    async function sign_in(config: client.Configuration, redirect_uri = REDIRECT_URI, extra: Record<string, string> = {}) {
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri,
        scope: "openid profile email",
        state,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        ...extra,
      });
      const { callback } = await authorize(new Browser(), url.href, { password: t.password, callback_prefix: redirect_uri });
      const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
      return { tokens, callback };
    }

    describe("discovery", () => {
      test("advertises request_uri, signed responses, JARM, pairwise; pairwise and request_uri follow the settings", async () => {
        const meta = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
        expect(meta.request_uri_parameter_supported).toBe(true);
        expect(meta.require_request_uri_registration).toBe(true);
        expect(meta.subject_types_supported).toEqual(["public", "pairwise"]);
        expect(meta.userinfo_signing_alg_values_supported).toEqual(["RS256", "ES256"]);
        expect(meta.introspection_signing_alg_values_supported).toEqual(["RS256", "ES256"]);
        expect(meta.authorization_signing_alg_values_supported).toEqual(["RS256", "ES256"]);
        expect(meta.response_modes_supported).toEqual(["query", "form_post", "jwt", "query.jwt", "fragment.jwt", "form_post.jwt"]);
        const plain = (await (await fetch(`${off.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
        expect(plain.subject_types_supported).toEqual(["public"]);
        expect(plain.request_uri_parameter_supported).toBe(false);
      });

      test("settings: IDP_REQUEST_URI, IDP_PAIRWISE_SALT (name themselves when wrong, masked)", () => {
        const config = load_config({ IDP_REQUEST_URI: "off", IDP_PAIRWISE_SALT: SALT, IDP_REQUEST_URI_MAX_BYTES: "4096" }, { issuer: t.issuer });
        expect(config.request_uri).toEqual({ enabled: false, max_bytes: 4096 });
        expect(build_discovery(config, ["RS256"]).document.subject_types_supported).toEqual(["public", "pairwise"]);
        expect(() => load_config({ IDP_PAIRWISE_SALT: "short" })).toThrow(/pairwise\.salt \(IDP_PAIRWISE_SALT\)/);
        expect(() => load_config({ IDP_REQUEST_URI: "maybe" })).toThrow(/IDP_REQUEST_URI/);
      });
    });

    describe("request_uri by reference (OIDC Core §6.2)", () => {
      const object = (claims: Record<string, unknown>) => new UnsecuredJWT(claims).setIssuer(app.client_id).setAudience(t.issuer).setIssuedAt().setExpirationTime("5m").encode();

      test("openid-client: the request object is fetched from the registered URL and its parameters are used", async () => {
        const config = await rp_config(app.client_id, app.secret);
        const verifier = client.randomPKCECodeVerifier();
        documents.set("/request.jwt", {
          type: "application/oauth-authz-req+jwt",
          body: object({
            client_id: app.client_id,
            response_type: "code",
            redirect_uri: REDIRECT_URI,
            scope: "openid email",
            state: "st-ref",
            nonce: "n-ref",
            code_challenge: await client.calculatePKCECodeChallenge(verifier),
            code_challenge_method: "S256",
          }),
        });
        const before = hits.filter((path) => path === "/request.jwt").length;
        const url = new URL("/authorize", t.url);
        url.searchParams.set("client_id", app.client_id);
        url.searchParams.set("request_uri", `${rp_url}/request.jwt#v1`);
        const { callback } = await authorize(new Browser(), url.href, { password: t.password, callback_prefix: REDIRECT_URI });
        expect(hits.filter((path) => path === "/request.jwt").length).toBe(before + 1);
        const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: "st-ref", expectedNonce: "n-ref" });
        expect(tokens.scope).toBe("openid email");
      });

      async function refused(request_uri: string, extra: Record<string, string> = {}, provider = t, client_id = app.client_id): Promise<URLSearchParams> {
        const url = new URL(authorization_url(provider, { code_challenge: pkce().challenge, code_challenge_method: "S256", ...extra }, client_id));
        url.searchParams.set("request_uri", request_uri);
        const response = await fetch(url, { redirect: "manual" });
        expect(response.status).toBe(302);
        const location = new URL(response.headers.get("location")!);
        expect(location.href.startsWith(REDIRECT_URI)).toBe(true);
        return location.searchParams;
      }

      test("refusals: unregistered URL (never fetched), failed fetch, too large, with request, setting off", async () => {
        const count = hits.length;
        const unregistered = await refused(`${rp_url}/other.jwt`);
        expect(unregistered.get("error")).toBe("invalid_request_uri");
        expect(unregistered.get("error_description")).toContain("registered request_uris");
        expect(hits.length).toBe(count);
        documents.delete("/missing.jwt");
        expect((await refused(`${rp_url}/missing.jwt`)).get("error")).toBe("invalid_request_uri");
        documents.set("/big.jwt", { type: "application/jwt", body: object({ pad: "x".repeat(4096) }) });
        const big = await refused(`${rp_url}/big.jwt`);
        expect(big.get("error")).toBe("invalid_request_uri");
        expect(big.get("error_description")).toBe("the request object could not be fetched from request_uri");
        const both = await refused(`${rp_url}/request.jwt`, { request: object({ scope: "openid" }) });
        expect(both.get("error")).toBe("invalid_request");
        const { client: other } = await off.add_client({ client_name: "Off", request_uris: [`${rp_url}/request.jwt`] });
        expect((await refused(`${rp_url}/request.jwt`, {}, off, other.client_id)).get("error")).toBe("request_uri_not_supported");
      });

      test("registration: request_uris must be https (or loopback http outside production)", async () => {
        const response = await fetch(`${t.url}/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI], request_uris: ["http://rp.example.com/r.jwt"] }),
        });
        expect(response.status).toBe(400);
        const body = (await response.json()) as { error: string; error_description: string };
        expect(body.error).toBe("invalid_client_metadata");
        expect(body.error_description).toContain("request_uris");
      });
    });

    describe("signed responses", () => {
      test("openid-client: UserInfo as an ES256 JWT with iss and aud, verified", async () => {
        const config = await rp_config(app.client_id, app.secret, { userinfo_signed_response_alg: "ES256" });
        const { tokens } = await sign_in(config);
        const raw = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
        expect(raw.headers.get("content-type")).toStartWith("application/jwt");
        const jwt = await raw.text();
        expect(decodeProtectedHeader(jwt).alg).toBe("ES256");
        const { payload } = await jwtVerify(jwt, jwks, { issuer: t.issuer, audience: app.client_id });
        expect(payload.sub).toBe(t.user.id);
        const userinfo = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
        expect(userinfo.email).toBe("alice@example.com");
      });

      test("openid-client: RFC 9701 introspection as a token-introspection+jwt", async () => {
        const config = await rp_config(app.client_id, app.secret, { introspection_signed_response_alg: "ES256" });
        const { tokens } = await sign_in(config);
        const answer = await client.tokenIntrospection(config, tokens.access_token);
        expect(answer.active).toBe(true);
        expect(answer.sub).toBe(t.user.id);
        const raw = await fetch(`${t.url}/introspect`, {
          method: "POST",
          headers: { authorization: basic(app.client_id, app.secret), "content-type": "application/x-www-form-urlencoded", accept: "application/token-introspection+jwt" },
          body: new URLSearchParams({ token: "not-a-token" }).toString(),
        });
        expect(raw.headers.get("content-type")).toStartWith("application/token-introspection+jwt");
        const { payload, protectedHeader } = await jwtVerify(await raw.text(), jwks, { issuer: t.issuer, audience: app.client_id, typ: "token-introspection+jwt" });
        expect(protectedHeader.alg).toBe("ES256");
        expect(payload.token_introspection).toEqual({ active: false });
        // RFC 9701 §5: no sub or exp at the top level.
        expect(payload.sub).toBeUndefined();
        expect(payload.exp).toBeUndefined();
        // Without the Accept header: plain JSON as before.
        const json = await fetch(`${t.url}/introspect`, {
          method: "POST",
          headers: { authorization: basic(app.client_id, app.secret), "content-type": "application/x-www-form-urlencoded" },
          body: "token=x",
        });
        expect(await json.json()).toEqual({ active: false });
      });

      test("registration accepts the signing members with our algs and refuses none, unknown algs and encryption", async () => {
        const register = (metadata: Record<string, unknown>) =>
          fetch(`${t.url}/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [REDIRECT_URI], ...metadata }) });
        const ok = await register({ userinfo_signed_response_alg: "RS256", introspection_signed_response_alg: "ES256", authorization_signed_response_alg: "ES256" });
        expect(ok.status).toBe(201);
        const registered = (await ok.json()) as Record<string, unknown>;
        expect(registered.userinfo_signed_response_alg).toBe("RS256");
        expect(registered.authorization_signed_response_alg).toBe("ES256");
        for (const [field, value] of [
          ["userinfo_signed_response_alg", "none"],
          ["introspection_signed_response_alg", "HS256"],
          ["authorization_signed_response_alg", "none"],
          ["authorization_encrypted_response_alg", "RSA-OAEP"],
        ] as const) {
          const response = await register({ [field]: value });
          expect(response.status).toBe(400);
          expect(((await response.json()) as { error_description: string }).error_description).toContain(field);
        }
      });
    });

    describe("JARM", () => {
      test("openid-client: response_mode=jwt (query.jwt), the code in a signed response JWT", async () => {
        const config = await rp_config(app.client_id, app.secret, { authorization_signed_response_alg: "ES256" });
        client.useJwtResponseMode(config);
        const { tokens, callback } = await sign_in(config, REDIRECT_URI, { response_mode: "jwt" });
        expect([...callback.searchParams.keys()]).toEqual(["response"]);
        const { payload } = await jwtVerify(callback.searchParams.get("response")!, jwks, { issuer: t.issuer, audience: app.client_id });
        expect(typeof payload.code).toBe("string");
        expect(payload.exp! - payload.iat!).toBe(300);
        expect(tokens.access_token.length).toBeGreaterThan(20);
      });

      test("fragment.jwt: the response JWT in the fragment", async () => {
        const { callback } = await authorize(
          new Browser(),
          authorization_url(t, { response_mode: "fragment.jwt", code_challenge: pkce().challenge, code_challenge_method: "S256" }, app.client_id),
          { password: t.password, callback_prefix: REDIRECT_URI },
        );
        expect(callback.search).toBe("");
        const params = new URLSearchParams(callback.hash.slice(1));
        const { payload } = await jwtVerify(params.get("response")!, jwks, { issuer: t.issuer, audience: app.client_id });
        expect(payload.state).toBe("st-123");
      });

      test("form_post.jwt and errors: an invalid prompt comes back as a signed error in a posted form", async () => {
        const response = await fetch(
          authorization_url(t, { response_mode: "form_post.jwt", prompt: "bogus", code_challenge: pkce().challenge, code_challenge_method: "S256" }, app.client_id),
          { redirect: "manual" },
        );
        expect(response.status).toBe(200);
        const html = await response.text();
        expect(hidden_field(html, "code")).toBeNull();
        const { payload } = await jwtVerify(hidden_field(html, "response")!, jwks, { issuer: t.issuer, audience: app.client_id });
        expect(payload.error).toBe("invalid_request");
        expect(payload.error_description).toContain("prompt");
        expect(payload.state).toBe("st-123");
      });
    });

    describe("pairwise subjects (OIDC Core §8.1)", () => {
      async function sub_of(client_id: string, secret: string, redirect_uri: string, browser = new Browser()) {
        const p = pkce();
        const { callback } = await authorize(browser, authorization_url(t, { redirect_uri, code_challenge: p.challenge, code_challenge_method: "S256" }, client_id), {
          password: t.password,
          callback_prefix: redirect_uri,
        });
        const response = await token_request(
          t,
          { grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri, code_verifier: p.verifier },
          { method: "basic", client_id, secret },
        );
        const body = (await response.json()) as { id_token: string; access_token: string };
        return { sub: decodeJwt(body.id_token).sub!, access_token: body.access_token, id_token: body.id_token };
      }

      test("different per sector, the same within one, stable across sign-ins, the same at userinfo and introspection", async () => {
        const a = await t.add_client({ client_name: "Pairwise A", subject_type: "pairwise" });
        const b = await t.add_client({ client_name: "Pairwise B", subject_type: "pairwise", redirect_uris: [OTHER_REDIRECT] });
        documents.set("/sector.json", { type: "application/json", body: JSON.stringify([FAR_REDIRECT, "https://far.example.net/other"]) });
        const registered = await fetch(`${t.url}/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: [FAR_REDIRECT], subject_type: "pairwise", sector_identifier_uri: `${rp_url}/sector.json` }),
        });
        expect(registered.status).toBe(201);
        const c = (await registered.json()) as { client_id: string; client_secret: string; subject_type: string };
        expect(c.subject_type).toBe("pairwise");

        const first_a = await sub_of(a.client.client_id, a.secret!, REDIRECT_URI);
        const again_a = await sub_of(a.client.client_id, a.secret!, REDIRECT_URI);
        const first_b = await sub_of(b.client.client_id, b.secret!, OTHER_REDIRECT);
        const first_c = await sub_of(c.client_id, c.client_secret, FAR_REDIRECT);
        const public_sub = await sub_of(t.client.client_id, t.secret, REDIRECT_URI);
        expect(public_sub.sub).toBe(t.user.id);
        expect(first_a.sub).not.toBe(t.user.id);
        expect(again_a.sub).toBe(first_a.sub);
        expect(first_b.sub).toBe(first_a.sub);
        expect(first_c.sub).not.toBe(first_a.sub);
        expect(first_a.sub).toBe(pairwise_sub("rp.example.com", t.user.id, SALT));
        expect(first_c.sub).toBe(pairwise_sub(new URL(rp_url).host, t.user.id, SALT));

        const userinfo = (await (await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${first_c.access_token}` } })).json()) as { sub: string };
        expect(userinfo.sub).toBe(first_c.sub);
        const introspected = await fetch(`${t.url}/introspect`, {
          method: "POST",
          headers: { authorization: basic(c.client_id, c.client_secret), "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ token: first_c.access_token }).toString(),
        });
        expect(((await introspected.json()) as { sub: string }).sub).toBe(first_c.sub);
      });

      test("an id_token_hint with the pairwise sub names the signed-in user (prompt=none answers a code)", async () => {
        const a = await t.add_client({ client_name: "Pairwise hint", subject_type: "pairwise" });
        const browser = new Browser();
        const p = pkce();
        const { callback } = await authorize(browser, authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }, a.client.client_id), {
          password: t.password,
          callback_prefix: REDIRECT_URI,
        });
        const tokens = (await (
          await token_request(
            t,
            { grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: REDIRECT_URI, code_verifier: p.verifier },
            { method: "basic", client_id: a.client.client_id, secret: a.secret! },
          )
        ).json()) as { id_token: string };
        const again = await browser.get(
          authorization_url(t, { prompt: "none", id_token_hint: tokens.id_token, code_challenge: pkce().challenge, code_challenge_method: "S256" }, a.client.client_id),
        );
        const location = new URL(again.headers.get("location")!);
        expect(location.searchParams.get("error")).toBeNull();
        expect(location.searchParams.get("code")).not.toBeNull();
      });

      test("RP-initiated logout with the pairwise ID Token as hint: no confirmation, and the logout token carries the pairwise sub", async () => {
        const { client: row, secret } = await t.add_client({ client_name: "Pairwise BCL", subject_type: "pairwise", backchannel_logout_uri: `${rp_url}/backchannel` });
        const browser = new Browser();
        const signed_in = await sub_of(row.client_id, secret!, REDIRECT_URI, browser);
        logout_tokens.length = 0;
        const logout = new URL(`${t.url}/logout`);
        logout.searchParams.set("id_token_hint", signed_in.id_token);
        const page = await browser.get(logout.href);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain("You are signed out");
        expect(logout_tokens.length).toBe(1);
        const { payload } = await jwtVerify(logout_tokens[0]!, jwks, { issuer: t.issuer, audience: row.client_id, typ: "logout+jwt" });
        expect(payload.sub).toBe(signed_in.sub);
        expect(payload.sub).not.toBe(t.user.id);
      });

      test("registration refusals: no salt, several hosts without a sector, a sector document missing a redirect URI, http sector", async () => {
        const register = (provider: TestProvider, metadata: Record<string, unknown>) =>
          fetch(`${provider.url}/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(metadata) });
        const expect_refused = async (response: Response, words: string) => {
          expect(response.status).toBe(400);
          const body = (await response.json()) as { error: string; error_description: string };
          expect(body.error).toBe("invalid_client_metadata");
          expect(body.error_description).toContain(words);
        };
        await expect_refused(await register(off, { redirect_uris: [REDIRECT_URI], subject_type: "pairwise" }), "pairwise");
        await expect_refused(await register(t, { redirect_uris: [REDIRECT_URI, FAR_REDIRECT], subject_type: "pairwise" }), "sector_identifier_uri");
        documents.set("/short-sector.json", { type: "application/json", body: JSON.stringify([FAR_REDIRECT]) });
        await expect_refused(
          await register(t, { redirect_uris: [FAR_REDIRECT, REDIRECT_URI], subject_type: "pairwise", sector_identifier_uri: `${rp_url}/short-sector.json` }),
          REDIRECT_URI,
        );
        documents.set("/not-array.json", { type: "application/json", body: JSON.stringify({ redirect_uris: [FAR_REDIRECT] }) });
        await expect_refused(await register(t, { redirect_uris: [FAR_REDIRECT], subject_type: "pairwise", sector_identifier_uri: `${rp_url}/not-array.json` }), "JSON array");
        await expect_refused(
          await register(t, { redirect_uris: [FAR_REDIRECT], subject_type: "pairwise", sector_identifier_uri: `${rp_url}/absent.json` }),
          "could not be fetched",
        );
        await expect_refused(await register(off, { redirect_uris: [FAR_REDIRECT], sector_identifier_uri: "http://sector.example.com/s.json" }), "https");
        await expect_refused(await register(t, { redirect_uris: [FAR_REDIRECT], subject_type: "secret" }), "subject_type");
      });
    });
  });
}
