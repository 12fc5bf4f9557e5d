/**
 * Pushed authorization requests (RFC 9126) through real HTTP, with oauth4webapi as the client:
 * the happy path (push, /authorize with the request_uri, code, tokens), and the refusals the
 * spec names: a replayed or expired request_uri, another client's, a failed client
 * authentication, an invalid pushed request, request_uri in the push, and a client that must push.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import * as oauth from "oauth4webapi";
import { Browser, authorize } from "../helpers/browser.ts";
import { authorization_url, basic, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { load_config } from "../../src/app/config.ts";
import { build_discovery } from "../../src/oidc/discovery/metadata.ts";
import type { Provider } from "../../src/oidc/provider.ts";
import { requires_par } from "../../src/oidc/authorize/request_uri.ts";

let t: TestProvider;
let as: oauth.AuthorizationServer;
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  t = await start_provider();
  as = await oauth.processDiscoveryResponse(new URL(t.issuer), await oauth.discoveryRequest(new URL(t.issuer), insecure));
});
afterAll(() => t.stop());

/** Pushes a request of the test client; returns the request_uri. */
async function push(
  params: Record<string, string> = {},
  client_id = t.client.client_id,
  secret = t.secret,
): Promise<{ request_uri: string; expires_in: number; verifier: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const response = await oauth.pushedAuthorizationRequest(
    as,
    { client_id },
    oauth.ClientSecretBasic(secret),
    {
      response_type: "code",
      redirect_uri: REDIRECT_URI,
      scope: "openid",
      state: "st-par",
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      ...params,
    },
    insecure,
  );
  const result = await oauth.processPushedAuthorizationResponse(as, { client_id }, response);
  return { ...result, verifier };
}

function authorize_with(request_uri: string, client_id = t.client.client_id, extra: Record<string, string> = {}): string {
  const url = new URL("/authorize", t.url);
  url.searchParams.set("client_id", client_id);
  url.searchParams.set("request_uri", request_uri);
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  return url.href;
}

async function post_par(form: Record<string, string>, authorization: string | null = basic(t.client.client_id, t.secret)): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (authorization !== null) headers.authorization = authorization;
  return fetch(new URL("/par", t.url), { method: "POST", headers, body: new URLSearchParams(form).toString() });
}

describe("pushed authorization requests", () => {
  test("discovery advertises the endpoint; PAR is not required by default", () => {
    expect(as.pushed_authorization_request_endpoint).toBe(`${t.issuer}/par`);
    expect(as.require_pushed_authorization_requests).toBe(false);
  });

  test("oauth4webapi: push, authorize with the request_uri only, redeem the code", async () => {
    const pushed = await push({ nonce: "n-par" });
    expect(pushed.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
    expect(pushed.expires_in).toBe(60);
    // RFC 9126 §4: anything else in the query is ignored (this scope and state are not used).
    const { callback } = await authorize(new Browser(), authorize_with(pushed.request_uri, t.client.client_id, { scope: "openid email", state: "ignored" }), {
      password: t.password,
      callback_prefix: REDIRECT_URI,
    });
    const params = oauth.validateAuthResponse(as, { client_id: t.client.client_id }, callback, "st-par");
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: t.client.client_id },
      oauth.ClientSecretBasic(t.secret),
      params,
      REDIRECT_URI,
      pushed.verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, { client_id: t.client.client_id }, response, { expectedNonce: "n-par" });
    expect(tokens.scope).toBe("openid");
    expect(tokens.token_type).toBe("bearer");
  });

  test("a request_uri is single use: the second /authorize gets the error page", async () => {
    const { request_uri } = await push();
    const browser = new Browser();
    const first = await browser.get(authorize_with(request_uri));
    expect(first.status).toBe(302);
    const again = await fetch(authorize_with(request_uri), { headers: { accept: "application/json" }, redirect: "manual" });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe("invalid_request_uri");
  });

  test("an expired request_uri is refused", async () => {
    const { request_uri } = await push();
    t.clock.advance(61);
    try {
      const response = await fetch(authorize_with(request_uri), { headers: { accept: "application/json" }, redirect: "manual" });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe("invalid_request_uri");
    } finally {
      t.clock.advance(-61);
    }
  });

  test("another client cannot use the request_uri, and does not burn it", async () => {
    const { client: other } = await t.add_client({ client_name: "Other", token_endpoint_auth_method: "client_secret_basic" });
    const { request_uri } = await push();
    const stolen = await fetch(authorize_with(request_uri, other.client_id), { headers: { accept: "application/json" }, redirect: "manual" });
    expect(stolen.status).toBe(400);
    const own = await fetch(authorize_with(request_uri), { redirect: "manual" });
    expect(own.status).toBe(302);
  });

  test("client authentication as at /token: a wrong secret is 401 invalid_client", async () => {
    const response = await post_par({ response_type: "code", redirect_uri: REDIRECT_URI, scope: "openid" }, basic(t.client.client_id, "wrong"));
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("Basic");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(((await response.json()) as { error: string }).error).toBe("invalid_client");
  });

  test("private_key_jwt: the assertion may name the PAR endpoint as its audience (RFC 9126 §2)", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const { client } = await t.add_client({
      client_name: "Keys",
      token_endpoint_auth_method: "private_key_jwt",
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }] },
    });
    const assertion = (aud: string) =>
      new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer(client.client_id)
        .setSubject(client.client_id)
        .setAudience(aud)
        .setIssuedAt()
        .setExpirationTime("1m")
        .sign(privateKey);
    const form = { response_type: "code", redirect_uri: REDIRECT_URI, scope: "openid", client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" };
    const ok = await post_par({ ...form, client_assertion: await assertion(`${t.issuer}/par`) }, null);
    expect(ok.status).toBe(201);
    const elsewhere = await post_par({ ...form, client_assertion: await assertion("https://other.example/par") }, null);
    expect(elsewhere.status).toBe(401);
  });

  test("browser-based clients: CORS preflight allows the DPoP header; answers are readable and no-store", async () => {
    const preflight = await fetch(new URL("/par", t.url), { method: "OPTIONS", headers: { origin: "https://spa.example", "access-control-request-method": "POST" } });
    expect(preflight.headers.get("access-control-allow-methods")).toBe("POST");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("DPoP");
    const pushed = await post_par({ response_type: "code", redirect_uri: REDIRECT_URI, scope: "openid", code_challenge: pkce().challenge, code_challenge_method: "S256" });
    expect(pushed.status).toBe(201);
    expect(pushed.headers.get("access-control-allow-origin")).toBe("*");
    expect(pushed.headers.get("cache-control")).toBe("no-store");
  });

  test("the pushed request is validated like an authorization request; errors in the OAuth JSON shape", async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ response_type: "code", redirect_uri: "https://evil.example/cb", scope: "openid" }, "invalid_request", "redirect_uri"],
      [{ response_type: "token", redirect_uri: REDIRECT_URI, scope: "openid" }, "unsupported_response_type", "response_type"],
      [{ response_type: "code", redirect_uri: REDIRECT_URI, scope: "openid", prompt: "none login" }, "invalid_request", "prompt"],
      [{ response_type: "code", redirect_uri: REDIRECT_URI, scope: "openid", request: "not-a-jwt" }, "invalid_request_object", "request object"],
      [{ response_type: "code", redirect_uri: REDIRECT_URI, scope: "openid", request_uri: "urn:ietf:params:oauth:request_uri:x" }, "invalid_request", "request_uri"],
    ];
    for (const [form, error, names] of cases) {
      const response = await post_par(form);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(body.error).toBe(error);
      expect(body.error_description).toContain(names);
    }
    expect(await t.store.consume_pushed_request("nothing", t.client.client_id, t.clock.now())).toBeNull();
  });

  test("a client registered with require_pushed_authorization_requests must push", async () => {
    const { client, secret } = await t.add_client({ client_name: "Must push", token_endpoint_auth_method: "client_secret_basic", require_pushed_authorization_requests: true });
    const plain = await fetch(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256" }, client.client_id), { redirect: "manual" });
    expect(plain.status).toBe(302);
    const location = new URL(plain.headers.get("location")!);
    expect(location.href.startsWith(REDIRECT_URI)).toBe(true);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toContain("pushed");
    const { request_uri } = await push({}, client.client_id, secret!);
    const pushed = await fetch(authorize_with(request_uri, client.client_id), { redirect: "manual" });
    expect(new URL(pushed.headers.get("location")!, t.url).pathname).toMatch(/^\/interaction\//);
  });

  test("IDP_REQUIRE_PAR makes every client push and discovery say so; the settings name themselves when wrong", () => {
    const config = load_config({ IDP_REQUIRE_PAR: "on", IDP_PAR_REQUEST_URI_TTL: "30" }, { issuer: t.issuer });
    expect(config.par).toEqual({ required: true, request_uri_ttl: 30 });
    expect(build_discovery(config, ["RS256"]).document.require_pushed_authorization_requests).toBe(true);
    expect(requires_par({ config } as Provider, t.client)).toBe(true);
    expect(requires_par(t.provider, t.client)).toBe(false);
    expect(() => load_config({ IDP_PAR_REQUEST_URI_TTL: "0" })).toThrow(/par\.request_uri_ttl \(IDP_PAR_REQUEST_URI_TTL\)/);
    expect(() => load_config({ IDP_REQUIRE_PAR: "maybe" })).toThrow(/IDP_REQUIRE_PAR/);
    expect(() => load_config({ IDP_DPOP_PROOF_WINDOW_SECONDS: "1" })).toThrow(/dpop\.proof_window_seconds \(IDP_DPOP_PROOF_WINDOW_SECONDS\)/);
  });
});
