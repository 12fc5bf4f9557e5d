/**
 * The FAPI 2.0 Security Profile (src/oidc/clients/fapi.ts) through real HTTP: a FAPI client (metadata
 * fapi_profile "2.0") with oauth4webapi — PAR, private_key_jwt, DPoP and PKCE to tokens and
 * userinfo — and the refusals the profile asks for: no PAR, client_secret_basic, no DPoP proof,
 * plain or missing PKCE, an RS256 assertion or DPoP proof (at /par and /userinfo), an assertion aud other than the
 * issuer, form_post, a request object by value at /authorize, a code redeemed after 60 s, and
 * registration metadata the profile forbids. The server-wide switch (IDP_FAPI=2.0): discovery's shape.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { SignJWT, exportJWK, generateKeyPair, importJWK, type CryptoKey } from "jose";
import * as oauth from "oauth4webapi";
import { Browser, authorize } from "../helpers/browser.ts";
import { basic } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { ConfigError, load_config } from "../../src/app/config.ts";
import { build_discovery } from "../../src/oidc/discovery/metadata.ts";
import { random_token } from "../../src/oidc/crypto/secrets.ts";
import { access_token_hash } from "../../src/oidc/tokens/dpop.ts";
import { register } from "./register_helpers.ts";

let t: TestProvider;
let as: oauth.AuthorizationServer;
const insecure = { [oauth.allowInsecureRequests]: true };

type Keys = { es: CryptoKey; rs: CryptoKey; public_jwks: { keys: Record<string, unknown>[] } };
let keys: Keys;
/** The FAPI client; its ID Tokens are ES256 (the profile's default on this key ring: RS256, ES256). */
let fapi: oauth.Client;
let dpop_keys: CryptoKeyPair;

beforeAll(async () => {
  // Plain clients keep 120 s codes: the FAPI client's 60 s is the profile's, not the setting's.
  t = await start_provider({ config: { registration: "open", tokens: { code_ttl: 120 } } });
  as = await oauth.processDiscoveryResponse(new URL(t.issuer), await oauth.discoveryRequest(new URL(t.issuer), insecure));
  const es = await generateKeyPair("ES256", { extractable: true });
  const rs = await generateKeyPair("RS256", { extractable: true });
  keys = {
    es: es.privateKey,
    rs: rs.privateKey,
    public_jwks: {
      keys: [
        { ...(await exportJWK(es.publicKey)), kid: "es", alg: "ES256" },
        { ...(await exportJWK(rs.publicKey)), kid: "rs", alg: "RS256" },
      ],
    },
  };
  const { client } = await t.add_client({
    client_name: "FAPI App",
    fapi_profile: "2.0",
    token_endpoint_auth_method: "private_key_jwt",
    jwks: keys.public_jwks as never,
    grant_types: ["authorization_code", "refresh_token"],
    id_token_signed_response_alg: "ES256",
    authorization_signed_response_alg: "ES256",
    skip_consent: true,
  });
  fapi = { client_id: client.client_id, id_token_signed_response_alg: "ES256" };
  dpop_keys = await generateKeyPair("ES256", { extractable: false });
});
afterAll(() => t.stop());

const private_key_jwt = () => oauth.PrivateKeyJwt({ key: keys.es, kid: "es" });

/** Pushes a FAPI request (private_key_jwt, PKCE S256); returns the request_uri and the verifier. */
async function push(params: Record<string, string> = {}, client: oauth.Client = fapi, dpop: CryptoKeyPair = dpop_keys): Promise<{ request_uri: string; verifier: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const response = await oauth.pushedAuthorizationRequest(
    as,
    client,
    private_key_jwt(),
    {
      response_type: "code",
      redirect_uri: REDIRECT_URI,
      scope: "openid email",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      ...params,
    },
    // RFC 9449 §10.1: the proof at /par binds the code to this key.
    { DPoP: oauth.DPoP(client, dpop), ...insecure },
  );
  const { request_uri } = await oauth.processPushedAuthorizationResponse(as, client, response);
  return { request_uri, verifier };
}

/** Signs in through the pages with a pushed request; the callback's parameters. */
async function code_for(request_uri: string): Promise<URLSearchParams> {
  const url = new URL("/authorize", t.url);
  url.searchParams.set("client_id", fapi.client_id);
  url.searchParams.set("request_uri", request_uri);
  const { callback } = await authorize(new Browser(), url.href, { password: t.password, callback_prefix: REDIRECT_URI });
  return oauth.validateAuthResponse(as, fapi, callback);
}

/** A hand-made client assertion of the FAPI client. */
function assertion(options: { alg?: "ES256" | "RS256"; aud?: string | string[]; now?: number } = {}): Promise<string> {
  const alg = options.alg ?? "ES256";
  const now = options.now ?? Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: random_token(16) })
    .setProtectedHeader({ alg, kid: alg === "ES256" ? "es" : "rs" })
    .setIssuer(fapi.client_id)
    .setSubject(fapi.client_id)
    .setAudience(options.aud ?? t.issuer)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(alg === "ES256" ? keys.es : keys.rs);
}

async function post_form(
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { error?: string; error_description?: string } & Record<string, unknown> }> {
  const response = await fetch(new URL(path, t.url), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as { error?: string; error_description?: string } };
}

function pushed_form(extra: Record<string, string> = {}): Record<string, string> {
  return {
    response_type: "code",
    redirect_uri: REDIRECT_URI,
    scope: "openid",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    ...extra,
  };
}

async function with_assertion(form: Record<string, string>, options: Parameters<typeof assertion>[0] = {}): Promise<Record<string, string>> {
  return { ...form, client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: await assertion(options) };
}

describe("FAPI 2.0 client: the whole flow", () => {
  test("oauth4webapi: PAR + private_key_jwt + DPoP + PKCE to DPoP-bound tokens and userinfo", async () => {
    const { request_uri, verifier } = await push({ nonce: "n-fapi" });
    const params = await code_for(request_uri);
    // RFC 9207 (FAPI 2.0 §5.3.2.2 item 5): iss in the response, checked by validateAuthResponse.
    const DPoP = oauth.DPoP(fapi, dpop_keys);
    const response = await oauth.authorizationCodeGrantRequest(as, fapi, private_key_jwt(), params, REDIRECT_URI, verifier, { DPoP, ...insecure });
    const tokens = await oauth.processAuthorizationCodeResponse(as, fapi, response, { expectedNonce: "n-fapi" });
    expect(tokens.token_type).toBe("dpop");
    const header = JSON.parse(Buffer.from(tokens.id_token!.split(".")[0]!, "base64url").toString()) as { alg: string };
    expect(header.alg).toBe("ES256");
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    const info = await oauth.processUserInfoResponse(as, fapi, claims.sub, await oauth.userInfoRequest(as, fapi, tokens.access_token, { DPoP, ...insecure }));
    expect(info.sub).toBe(claims.sub);
    expect(info.email).toBe(t.user.email!);
    // The DPoP-bound token is refused as a Bearer token.
    const bearer = await fetch(new URL("/userinfo", t.url), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(bearer.status).toBe(401);
  });
});

describe("FAPI 2.0 refusals", () => {
  test("no PAR: an authorization request straight to /authorize gets invalid_request at the redirect URI", async () => {
    const url = new URL("/authorize", t.url);
    for (const [name, value] of Object.entries({ ...pushed_form(), client_id: fapi.client_id, state: "s1" })) url.searchParams.set(name, value);
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(location.href.startsWith(REDIRECT_URI)).toBe(true);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toContain("pushed");
  });

  test("a request object by value at /authorize is refused unread", async () => {
    const url = new URL("/authorize", t.url);
    url.searchParams.set("client_id", fapi.client_id);
    url.searchParams.set("redirect_uri", REDIRECT_URI);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("request", "eyJhbGciOiJub25lIn0.eyJzY29wZSI6Im9wZW5pZCJ9.");
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toContain("request objects must be sent to the pushed authorization request endpoint");
  });

  test("client_secret_basic at /par is invalid_client: FAPI clients use private_key_jwt", async () => {
    const { status, body } = await post_form("/par", pushed_form(), { authorization: basic(fapi.client_id, "any-secret") });
    expect(status).toBe(401);
    expect(body.error).toBe("invalid_client");
    expect(body.error_description).toContain("private_key_jwt");
  });

  test("an RS256 client assertion is refused (FAPI 2.0 §5.4.1); the same key's ES256 twin is accepted", async () => {
    const refused = await post_form("/par", await with_assertion(pushed_form(), { alg: "RS256" }));
    expect(refused.status).toBe(401);
    expect(refused.body.error_description).toContain("not RS256");
    const accepted = await post_form("/par", await with_assertion(pushed_form(), { alg: "ES256" }));
    expect(accepted.status).toBe(201);
  });

  test("the assertion aud must be the issuer as a string: the token endpoint URL or an array is refused", async () => {
    for (const aud of [`${t.issuer}/token`, `${t.issuer}/par`, [t.issuer]]) {
      const { status, body } = await post_form("/par", await with_assertion(pushed_form(), { aud }));
      expect({ aud, status, error: body.error }).toEqual({ aud, status: 401, error: "invalid_client" });
      expect(body.error_description).toContain("issuer as a string");
    }
  });

  test("PKCE: plain and a missing code_challenge are refused at /par", async () => {
    const plain = await post_form("/par", await with_assertion(pushed_form({ code_challenge: "a".repeat(43), code_challenge_method: "plain" })));
    expect(plain.status).toBe(400);
    expect(plain.body.error).toBe("invalid_request");
    expect(plain.body.error_description).toContain("S256");
    const form = pushed_form();
    delete form.code_challenge;
    delete form.code_challenge_method;
    const missing = await post_form("/par", await with_assertion(form));
    expect(missing.status).toBe(400);
    expect(missing.body.error_description).toContain("must use PKCE");
  });

  test("response_mode form_post is refused; response_type other than code too", async () => {
    const form_post = await post_form("/par", await with_assertion(pushed_form({ response_mode: "form_post" })));
    expect(form_post.status).toBe(400);
    expect(form_post.body.error_description).toContain("not allowed under FAPI 2.0");
    const token = await post_form("/par", await with_assertion(pushed_form({ response_type: "token" })));
    expect(token.status).toBe(400);
    expect(token.body.error).toBe("unsupported_response_type");
  });

  test("a token request without a DPoP proof is refused, and burns nothing", async () => {
    const { request_uri, verifier } = await push();
    const params = await code_for(request_uri);
    const without = await oauth.authorizationCodeGrantRequest(as, fapi, private_key_jwt(), params, REDIRECT_URI, verifier, insecure);
    expect(without.status).toBe(400);
    const body = (await without.json()) as { error: string; error_description: string };
    expect(body.error).toBe("invalid_dpop_proof");
    expect(body.error_description).toContain("FAPI 2.0");
    // The proof is checked before the code is consumed: the same code still works with one.
    const DPoP = oauth.DPoP(fapi, dpop_keys);
    const response = await oauth.authorizationCodeGrantRequest(as, fapi, private_key_jwt(), params, REDIRECT_URI, verifier, { DPoP, ...insecure });
    expect((await oauth.processAuthorizationCodeResponse(as, fapi, response)).token_type).toBe("dpop");
  });

  test("an RS256 DPoP proof is refused for a FAPI client", async () => {
    const rsa = await generateKeyPair("RS256", { extractable: true });
    const proof = await new SignJWT({ jti: random_token(16), htm: "POST", htu: `${t.issuer}/par`, iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: "RS256", typ: "dpop+jwt", jwk: await exportJWK(rsa.publicKey) })
      .sign(rsa.privateKey);
    const { status, body } = await post_form("/par", await with_assertion(pushed_form()), { dpop: proof });
    expect(status).toBe(400);
    expect(body.error).toBe("invalid_dpop_proof");
    expect(body.error_description).toContain("FAPI 2.0");
  });

  test("at /userinfo too: a token bound to an RSA key (PS256 at /token) is refused with an RS256 proof of the same key", async () => {
    const rsa = await generateKeyPair("PS256", { extractable: true });
    const { request_uri, verifier } = await push({}, fapi, rsa);
    const params = await code_for(request_uri);
    const DPoP = oauth.DPoP(fapi, rsa);
    const response = await oauth.authorizationCodeGrantRequest(as, fapi, private_key_jwt(), params, REDIRECT_URI, verifier, { DPoP, ...insecure });
    const tokens = await oauth.processAuthorizationCodeResponse(as, fapi, response);
    const userinfo = (proof: string) => fetch(new URL("/userinfo", t.url), { headers: { authorization: `DPoP ${tokens.access_token}`, dpop: proof } });
    const proof = async (alg: "PS256" | "RS256") =>
      new SignJWT({ jti: random_token(16), htm: "GET", htu: `${t.issuer}/userinfo`, iat: Math.floor(Date.now() / 1000), ath: access_token_hash(tokens.access_token) })
        .setProtectedHeader({ alg, typ: "dpop+jwt", jwk: await exportJWK(rsa.publicKey) })
        .sign(await importJWK(await exportJWK(rsa.privateKey), alg));
    const refused = await userinfo(await proof("RS256"));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_dpop_proof"');
    expect((await userinfo(await proof("PS256"))).status).toBe(200);
  });

  test("a code is redeemed within 60 s only (FAPI 2.0 §5.3.2.1), though the setting allows 120", async () => {
    const { request_uri, verifier } = await push();
    const params = await code_for(request_uri);
    t.clock.advance(61);
    try {
      // The client's clock moves with the server's, so the assertion and the proof are fresh.
      const late: oauth.Client = { ...fapi, [oauth.clockSkew]: 61 };
      const response = await oauth.authorizationCodeGrantRequest(as, late, private_key_jwt(), params, REDIRECT_URI, verifier, { DPoP: oauth.DPoP(late, dpop_keys), ...insecure });
      const body = (await response.json()) as { error: string; error_description: string };
      expect({ status: response.status, ...body }).toEqual({ status: 400, error: "invalid_grant", error_description: "the authorization code has expired" });
    } finally {
      t.clock.advance(-61);
    }
  });
});

describe("FAPI 2.0 registration", () => {
  const fapi_metadata = () => ({ redirect_uris: [REDIRECT_URI], fapi_profile: "2.0", token_endpoint_auth_method: "private_key_jwt", jwks: keys.public_jwks });

  test("a FAPI client registers with the profile's defaults", async () => {
    const response = await register(t, fapi_metadata());
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status).toBe(201);
    expect(body).toMatchObject({
      fapi_profile: "2.0",
      id_token_signed_response_alg: "ES256",
      authorization_signed_response_alg: "ES256",
      require_pushed_authorization_requests: true,
      dpop_bound_access_tokens: true,
    });
  });

  test("an http redirect URI is invalid_redirect_uri", async () => {
    const response = await register(t, { ...fapi_metadata(), redirect_uris: ["http://localhost:8080/cb"] });
    const body = (await response.json()) as { error: string; error_description: string };
    expect({ status: response.status, error: body.error }).toEqual({ status: 400, error: "invalid_redirect_uri" });
    expect(body.error_description).toContain("https");
  });

  test("metadata the profile forbids is invalid_client_metadata naming the member", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ token_endpoint_auth_method: "client_secret_basic", jwks: undefined }, "token_endpoint_auth_method"],
      [{ id_token_signed_response_alg: "RS256" }, "id_token_signed_response_alg"],
      [{ token_endpoint_auth_signing_alg: "RS256" }, "token_endpoint_auth_signing_alg"],
      [{ grant_types: ["authorization_code", "urn:ietf:params:oauth:grant-type:device_code"], response_types: ["code"] }, "grant_types"],
      [{ dpop_bound_access_tokens: false }, "dpop_bound_access_tokens"],
      [{ fapi_profile: "1.0" }, "fapi_profile"],
    ];
    for (const [change, field] of cases) {
      const response = await register(t, { ...fapi_metadata(), ...change });
      const body = (await response.json()) as { error: string; error_description: string };
      expect({ field, status: response.status, error: body.error }).toEqual({ field, status: 400, error: "invalid_client_metadata" });
      expect(body.error_description).toStartWith(field);
    }
  });

  test("without fapi_profile the same metadata is a plain client (the switch is off)", async () => {
    const response = await register(t, { redirect_uris: ["http://localhost:8080/cb"] });
    expect(response.status).toBe(201);
    expect(as.token_endpoint_auth_methods_supported).toContain("client_secret_basic");
    expect(as.require_pushed_authorization_requests).toBe(false);
  });
});

describe("the server-wide switch IDP_FAPI=2.0", () => {
  const config = (extra: Record<string, unknown> = {}) =>
    load_config({ IDP_FAPI: "2.0" }, { issuer: "https://id.example.com", signing_algs: ["RS256", "PS256", "ES256"], ...extra });

  test("discovery advertises only what the profile allows", () => {
    const document = build_discovery(config(), ["RS256", "PS256", "ES256"]).document;
    expect(document).toMatchObject({
      token_endpoint_auth_methods_supported: ["private_key_jwt"],
      revocation_endpoint_auth_methods_supported: ["private_key_jwt"],
      introspection_endpoint_auth_methods_supported: ["private_key_jwt"],
      token_endpoint_auth_signing_alg_values_supported: ["PS256", "ES256", "EdDSA"],
      require_pushed_authorization_requests: true,
      code_challenge_methods_supported: ["S256"],
      response_types_supported: ["code"],
      response_modes_supported: ["query", "jwt", "query.jwt", "fragment.jwt", "form_post.jwt"],
      id_token_signing_alg_values_supported: ["PS256", "ES256"],
      dpop_signing_alg_values_supported: ["PS256", "ES256", "EdDSA"],
      authorization_response_iss_parameter_supported: true,
      grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
    });
    expect(document.device_authorization_endpoint).toBeUndefined();
  });

  test("the switch refuses codes longer than 60 s and a key ring of RS256 alone", () => {
    expect(() => config({ tokens: { code_ttl: 120 } })).toThrow(ConfigError);
    expect(() => config({ signing_algs: ["RS256"] })).toThrow(ConfigError);
    expect(() => load_config({ IDP_FAPI: "1.0" }, {})).toThrow(ConfigError);
  });
});
