/**
 * private_key_jwt client authentication (RFC 7523 §3, OIDC Core §9) at /token, /revoke and
 * /introspect: a client registered through /register with its `jwks` completes a flow with
 * openid-client's PrivateKeyJwt; hand-made assertions check each rule; a `jwks_uri` is fetched
 * from a local server, cached, and refetched once for an unknown kid.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { SignJWT, UnsecuredJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import * as client from "openid-client";
import { JWT_BEARER } from "../../src/oidc/clients/assertion.ts";
import { get_code, redeem, type ClientAuth } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { registered } from "./register_helpers.ts";
import { rp, sign_in } from "./token_helpers.ts";

type Key = { privateKey: CryptoKey; jwk: JWK; kid: string; alg: string };

async function make_key(alg: "ES256" | "RS256" | "PS256" | "EdDSA", kid: string = crypto.randomUUID()): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" }, kid, alg };
}

let t: TestProvider;
beforeAll(async () => {
  // The jwks_uri tests serve keys from 127.0.0.1 over http: the operator allow-lists it (oidc/outbound/fetch.ts).
  // The assertion rules fail on purpose for one client from one address more often than the
  // default failure limit allows (rate_limit.test.ts tests that limit).
  t = await start_provider({ config: { registration: "open", outbound: { allow_http: true, allow: ["127.0.0.1/32"] }, rate_limits: { auth_failures_per_client_ip: 1000 } } });
});
afterAll(() => t.stop());

/** A client registered directly in the store with private_key_jwt and the given key source. */
async function jwt_client(keys: { jwks: { keys: JWK[] } } | { jwks_uri: string }, extra: Record<string, unknown> = {}): Promise<string> {
  const { client: row } = await t.add_client({ token_endpoint_auth_method: "private_key_jwt", ...(keys as Record<string, unknown>), ...extra });
  return row.client_id;
}

type Claims = { iss?: string; sub?: string; aud?: string | string[]; exp?: number; iat?: number; jti?: string };

/** A client assertion; every claim overridable (undefined removes it). */
async function assertion(key: Key, client_id: string, claims: Claims = {}, header: Record<string, unknown> = {}): Promise<string> {
  const now = t.clock.now();
  const all: Claims = { iss: client_id, sub: client_id, aud: t.issuer, iat: now, exp: now + 60, jti: crypto.randomUUID(), ...claims };
  const payload = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined));
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
}

async function post(path: string, form: Record<string, string>, jwt: string | null, extra: Record<string, string> = {}): Promise<Response> {
  const body = new URLSearchParams({ ...form, ...(jwt === null ? {} : { client_assertion_type: JWT_BEARER, client_assertion: jwt }), ...extra });
  return fetch(`${t.url}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: body.toString() });
}

/** A client_credentials-free probe: POST /introspect authenticates and answers 200 or 401. */
async function authenticates(jwt: string, path = "/introspect"): Promise<{ status: number; error?: string; error_description?: string }> {
  const response = await post(path, { token: "A".repeat(43) }, jwt);
  const text = await response.text();
  return { status: response.status, ...(response.status === 200 ? {} : (JSON.parse(text) as { error: string; error_description: string })) };
}

describe("with openid-client", () => {
  test("private_key_jwt: works with openid-client (registered through /register with jwks)", async () => {
    const key = await make_key("ES256");
    const info = await registered(t, {
      redirect_uris: [REDIRECT_URI],
      client_name: "JWT App",
      token_endpoint_auth_method: "private_key_jwt",
      jwks: { keys: [key.jwk] },
      grant_types: ["authorization_code", "refresh_token"],
    });
    expect(info.token_endpoint_auth_method).toBe("private_key_jwt");
    expect(info.client_secret).toBeUndefined();
    const config = await rp(t, info.client_id, client.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }));
    const { tokens } = await sign_in(t, config, "openid offline_access");
    expect(tokens.claims()!.aud).toBe(info.client_id);
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect((await client.tokenIntrospection(config, refreshed.access_token)).active).toBe(true);
    await client.tokenRevocation(config, refreshed.refresh_token!);
    expect((await client.tokenIntrospection(config, refreshed.access_token)).active).toBe(false);
  });

  for (const alg of ["RS256", "PS256", "EdDSA"] as const) {
    test(`private_key_jwt: ${alg} assertions are accepted`, async () => {
      const key = await make_key(alg);
      const client_id = await jwt_client({ jwks: { keys: [key.jwk] } });
      expect((await authenticates(await assertion(key, client_id))).status).toBe(200);
    });
  }
});

describe("assertion rules", () => {
  let key: Key;
  let client_id: string;
  beforeAll(async () => {
    key = await make_key("ES256");
    client_id = await jwt_client({ jwks: { keys: [key.jwk] } });
  });

  test("private_key_jwt: jti replay refused", async () => {
    const jwt = await assertion(key, client_id);
    expect((await authenticates(jwt)).status).toBe(200);
    const replay = await authenticates(jwt);
    expect(replay).toMatchObject({ status: 401, error: "invalid_client" });
    expect(replay.error_description).toContain("jti");
  });

  test("private_key_jwt: wrong aud refused", async () => {
    for (const aud of ["https://other.example.com", `${t.issuer}/userinfo`, `${t.issuer}/`]) {
      const refused = await authenticates(await assertion(key, client_id, { aud }));
      expect(refused).toMatchObject({ status: 401, error: "invalid_client" });
      expect(refused.error_description).toContain("aud");
    }
  });

  test("private_key_jwt: aud may be the issuer, the token endpoint, or the endpoint called", async () => {
    expect((await authenticates(await assertion(key, client_id, { aud: `${t.issuer}/token` }))).status).toBe(200);
    expect((await authenticates(await assertion(key, client_id, { aud: [`${t.issuer}/introspect`, "https://other.example.com"] }))).status).toBe(200);
    expect((await authenticates(await assertion(key, client_id, { aud: `${t.issuer}/revoke` }), "/revoke")).status).toBe(200);
    // ... but not another endpoint's URL.
    expect((await authenticates(await assertion(key, client_id, { aud: `${t.issuer}/revoke` }), "/introspect")).status).toBe(401);
  });

  test("private_key_jwt: expired, exp too far ahead, or without exp/jti refused", async () => {
    const now = t.clock.now();
    for (const claims of [{ exp: now - 120, iat: now - 180 }, { exp: now + 3600 }, { exp: undefined }, { jti: undefined }]) {
      expect(await authenticates(await assertion(key, client_id, claims))).toMatchObject({ status: 401, error: "invalid_client" });
    }
  });

  test("private_key_jwt: iss and sub must both be the client_id", async () => {
    expect((await authenticates(await assertion(key, client_id, { iss: "someone-else" }))).status).toBe(401);
    expect((await authenticates(await assertion(key, client_id, { sub: "someone-else" }))).status).toBe(401);
    // client_id in the body naming another client.
    const response = await post("/introspect", { token: "A".repeat(43) }, await assertion(key, client_id), { client_id: t.client.client_id });
    expect(response.status).toBe(401);
  });

  test("private_key_jwt: a key the client did not register, HS256 and none are refused", async () => {
    const stranger = await make_key("ES256", key.kid);
    expect((await authenticates(await assertion(stranger, client_id))).status).toBe(401);
    const secret = new TextEncoder().encode("x".repeat(32));
    const hs = await new SignJWT({ iss: client_id, sub: client_id, aud: t.issuer, exp: t.clock.now() + 60, jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: "HS256" })
      .sign(secret);
    expect((await authenticates(hs)).status).toBe(401);
    const none = new UnsecuredJWT({ iss: client_id, sub: client_id, aud: t.issuer, exp: t.clock.now() + 60, jti: crypto.randomUUID() }).encode();
    expect((await authenticates(none)).status).toBe(401);
  });

  test("private_key_jwt: the registered method only; one method per request", async () => {
    // A client_secret_basic client cannot switch to an assertion ...
    const other = await make_key("ES256");
    expect((await authenticates(await assertion(other, t.client.client_id))).status).toBe(401);
    // ... and a private_key_jwt client cannot use a secret or nothing.
    const auth: ClientAuth = { method: "none", client_id };
    const { code, pkce } = await get_code(t, {}, { client_id });
    expect((await redeem(t, code, pkce!.verifier, auth)).status).toBe(401);
    // Basic and an assertion together: invalid_request (RFC 6749 §2.3).
    const both = await fetch(`${t.url}/introspect`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${t.client.client_id}:${t.secret}`).toString("base64")}` },
      body: new URLSearchParams({ token: "x", client_assertion_type: JWT_BEARER, client_assertion: await assertion(key, client_id) }).toString(),
    });
    expect(both.status).toBe(400);
    // An assertion type we do not know.
    expect((await post("/introspect", { token: "x", client_assertion_type: "urn:example:saml", client_assertion: await assertion(key, client_id) }, null)).status).toBe(401);
  });
});

describe("jwks_uri", () => {
  let server: FetchServer;
  let served: { keys: JWK[] } = { keys: [] };
  let fetches = 0;
  beforeAll(async () => {
    server = await serve_fetch((request) => {
      const path = new URL(request.url).pathname;
      if (path === "/jwks") {
        fetches++;
        return Response.json(served);
      }
      if (path === "/redirect") return new Response(null, { status: 302, headers: { location: "/jwks" } });
      // Beyond outbound.max_bytes (512 KiB by default).
      if (path === "/huge") return new Response(JSON.stringify({ keys: [], pad: "x".repeat(600_000) }), { headers: { "content-type": "application/json" } });
      return new Response("not found", { status: 404 });
    });
  });
  afterAll(() => server.stop());

  test("private_key_jwt: jwks_uri fetched (served from a local server), then cached", async () => {
    const key = await make_key("ES256");
    served = { keys: [key.jwk] };
    fetches = 0;
    const client_id = await jwt_client({ jwks_uri: `http://127.0.0.1:${server.port}/jwks` });
    expect((await authenticates(await assertion(key, client_id))).status).toBe(200);
    expect((await authenticates(await assertion(key, client_id))).status).toBe(200);
    expect(fetches).toBe(1);
  });

  test("private_key_jwt: an unknown kid refetches the jwks_uri once (the client rotated its key)", async () => {
    const old_key = await make_key("ES256");
    served = { keys: [old_key.jwk] };
    const uri = `http://127.0.0.1:${server.port}/jwks?c=${crypto.randomUUID()}`;
    const client_id = await jwt_client({ jwks_uri: uri });
    fetches = 0;
    expect((await authenticates(await assertion(old_key, client_id))).status).toBe(200);
    const new_key = await make_key("ES256");
    served = { keys: [old_key.jwk, new_key.jwk] };
    // Within the cooldown the cached set answers: no fetch for every unknown kid.
    expect((await authenticates(await assertion(new_key, client_id))).status).toBe(401);
    expect(fetches).toBe(1);
    t.clock.advance(11);
    expect((await authenticates(await assertion(new_key, client_id))).status).toBe(200);
    expect(fetches).toBe(2);
    // A kid that is nowhere: one more fetch at most, then refused.
    const stranger = await make_key("ES256");
    t.clock.advance(11);
    expect((await authenticates(await assertion(stranger, client_id))).status).toBe(401);
    expect((await authenticates(await assertion(stranger, client_id))).status).toBe(401);
    expect(fetches).toBe(3);
  });

  test("private_key_jwt: a jwks_uri that redirects, is too large, or is missing is refused", async () => {
    const key = await make_key("ES256");
    for (const path of ["/redirect", "/huge", "/missing"]) {
      const client_id = await jwt_client({ jwks_uri: `http://127.0.0.1:${server.port}${path}` });
      const refused = await authenticates(await assertion(key, client_id));
      expect(refused).toMatchObject({ status: 401, error: "invalid_client" });
    }
  });

  test("private_key_jwt: a jwks_uri on a private address is refused with a generic error", async () => {
    const key = await make_key("ES256");
    // 10/8 is not in this provider's outbound.allow: refused without a request (tests/security/outbound.test.ts has the rest).
    const client_id = await jwt_client({ jwks_uri: "https://10.0.0.1:8443/jwks" });
    const refused = await authenticates(await assertion(key, client_id));
    expect(refused).toMatchObject({ status: 401, error: "invalid_client", error_description: "the client's jwks_uri could not be used" });
  });
});
