/**
 * Request objects (OIDC Core §6.1, RFC 9101): unsigned ones, signed ones built by openid-client
 * (JAR) with a key the client registered, every refusal, and a request_uri the client did not
 * register (by reference: tests/http/jwt_responses.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { UnsecuredJWT, exportJWK, generateKeyPair } from "jose";
import * as client from "openid-client";
import { Browser } from "../helpers/browser.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { drive, exchange, expect_error, insecure, relying_party, type Started } from "./authorize_helpers.ts";

let t: TestProvider;
let rp: client.Configuration;
beforeAll(async () => {
  t = await start_provider();
  rp = await relying_party(t);
});
afterAll(() => t.stop());

/** PKCE, state and nonce for a request built by hand. */
async function secrets(): Promise<Omit<Started, "url"> & { challenge: string }> {
  const verifier = client.randomPKCECodeVerifier();
  return { verifier, challenge: await client.calculatePKCECodeChallenge(verifier), state: client.randomState(), nonce: client.randomNonce() };
}

function unsigned(claims: Record<string, unknown>, client_id = t.client.client_id): Promise<string> {
  return Promise.resolve(new UnsecuredJWT(claims).setIssuer(client_id).setAudience(t.issuer).setIssuedAt().setExpirationTime("5m").encode());
}

/** An authorization URL (openid-client) whose query can receive errors: redirect_uri and state. */
function with_request(request: string, state: string, extra: Record<string, string> = {}): URL {
  return client.buildAuthorizationUrl(rp, { response_type: "code", scope: "openid", redirect_uri: REDIRECT_URI, state, request, ...extra });
}

describe("request objects", () => {
  test("request object (unsigned) parameters used", async () => {
    const s = await secrets();
    const request = await unsigned({
      client_id: t.client.client_id,
      response_type: "code",
      redirect_uri: REDIRECT_URI,
      scope: "openid email",
      state: s.state,
      nonce: s.nonce,
      code_challenge: s.challenge,
      code_challenge_method: "S256",
      max_age: 3600,
      claims: { id_token: { name: { essential: true } } },
    });
    // The query carries what OAuth 2.0 requires, with a scope the object overrides (§6.3.3).
    const url = client.buildAuthorizationUrl(rp, { response_type: "code", scope: "openid", request });
    const { arrival, pages } = await drive(new Browser(), url.href);
    expect(pages).toEqual(["login", "consent"]);
    const { tokens, claims } = await exchange(rp, { url, ...s }, arrival, { maxAge: 3600 });
    expect(tokens.scope).toBe("openid email");
    expect(claims.email).toBe("alice@example.com");
    expect(claims.name).toBe("Alice Liddell");
    expect(typeof claims.auth_time).toBe("number");
  });

  test("request object signed with the client's registered key (openid-client JAR)", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "rp-key-1", alg: "ES256", use: "sig" };
    const { client: jar, secret } = await t.add_client({ client_name: "JAR", jwks: { keys: [jwk] }, request_object_signing_alg: "ES256" });
    const jar_rp = await client.discovery(new URL(t.issuer), jar.client_id, {}, client.ClientSecretBasic(secret!), insecure);
    const s = await secrets();
    const url = await client.buildAuthorizationUrlWithJAR(
      jar_rp,
      { redirect_uri: REDIRECT_URI, scope: "openid profile", state: s.state, nonce: s.nonce, code_challenge: s.challenge, code_challenge_method: "S256" },
      { key: privateKey, kid: "rp-key-1" },
    );
    // RFC 9101 §5: only client_id and request in the query.
    expect([...url.searchParams.keys()].sort()).toEqual(["client_id", "request"]);
    const { arrival } = await drive(new Browser(), url.href);
    const { claims } = await exchange(jar_rp, { url, ...s }, arrival);
    expect(claims.name).toBe("Alice Liddell");

    // Signed with a key it did not register: refused. Without a redirect_uri in the query, as a page.
    const other = await generateKeyPair("ES256");
    const forged = await client.buildAuthorizationUrlWithJAR(
      jar_rp,
      { redirect_uri: REDIRECT_URI, state: s.state, code_challenge: s.challenge, code_challenge_method: "S256" },
      { key: other.privateKey, kid: "rp-key-1" },
    );
    const page = await new Browser().get(forged.href);
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
    expect(await page.text()).toContain("could not be read");
    // With the query's redirect_uri, the error goes to the client.
    const forged_url = new URL(forged);
    forged_url.searchParams.set("redirect_uri", REDIRECT_URI);
    forged_url.searchParams.set("state", "q-state");
    expect_error(t, (await drive(new Browser(), forged_url.href)).arrival, "invalid_request_object", "q-state");
  });

  test("a client registered for signed request objects cannot send alg none", async () => {
    const { client: strict } = await t.add_client({ request_object_signing_alg: "RS256" });
    const request = await unsigned({ scope: "openid" }, strict.client_id);
    const url = new URL(`${t.issuer}/authorize`);
    for (const [k, v] of Object.entries({ client_id: strict.client_id, response_type: "code", redirect_uri: REDIRECT_URI, state: "st", request })) url.searchParams.set(k, v);
    expect_error(t, (await drive(new Browser(), url.href)).arrival, "invalid_request_object", "st");
  });

  test("request object that disagrees or is not valid → invalid_request_object", async () => {
    const base = { iss: t.client.client_id, aud: t.issuer };
    const cases: Record<string, string> = {
      "client_id differs": new UnsecuredJWT({ ...base, client_id: "someone-else" }).encode(),
      "response_type differs": new UnsecuredJWT({ ...base, response_type: "token" }).encode(),
      "iss is not the client": new UnsecuredJWT({ ...base, iss: "someone-else" }).encode(),
      "aud is not the issuer": new UnsecuredJWT({ ...base, aud: "https://other.example.com" }).encode(),
      expired: new UnsecuredJWT(base).setExpirationTime(Math.floor(Date.now() / 1000) - 3600).encode(),
      "nested request": new UnsecuredJWT({ ...base, request: "x" }).encode(),
      "nested request_uri": new UnsecuredJWT({ ...base, request_uri: "https://x" }).encode(),
      "array value": new UnsecuredJWT({ ...base, scope: ["openid"] }).encode(),
      "HS256 (a secret we do not keep)": "eyJhbGciOiJIUzI1NiJ9.e30.c2ln",
      encrypted: "eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d",
      "not a JWT": "hello",
    };
    for (const [name, request] of Object.entries(cases)) {
      const state = `st-${name.replace(/\W/g, "-")}`;
      const { arrival } = await drive(new Browser(), with_request(request, state).href);
      expect({ name, error: new URLSearchParams(arrival.mode === "query" ? arrival.url.search : arrival.params).get("error") }).toEqual({ name, error: "invalid_request_object" });
      expect_error(t, arrival, "invalid_request_object", state);
    }
  });

  test("request sent twice → invalid_request", async () => {
    const request = await unsigned({});
    const url = with_request(request, "st-twice");
    url.searchParams.append("request", request);
    expect_error(t, (await drive(new Browser(), url.href)).arrival, "invalid_request", "st-twice");
  });

  test("request_uri naming a URL the client did not register → invalid_request_uri, nothing fetched (pushed requests' URNs are tests/http/par.test.ts)", async () => {
    const url = client.buildAuthorizationUrl(rp, {
      response_type: "code",
      scope: "openid",
      redirect_uri: REDIRECT_URI,
      state: "st-uri",
      request_uri: "https://rp.example.com/request.jwt",
    });
    expect_error(t, (await drive(new Browser(), url.href)).arrival, "invalid_request_uri", "st-uri");
  });

  test("discovery advertises request objects by value, and by reference to registered URLs", () => {
    const meta = rp.serverMetadata();
    expect(meta.request_parameter_supported).toBe(true);
    expect(meta.request_uri_parameter_supported).toBe(true);
    expect(meta.require_request_uri_registration).toBe(true);
    expect(meta.request_object_signing_alg_values_supported).toEqual(["none", "RS256", "PS256", "ES256", "EdDSA"]);
  });
});
