/**
 * DPoP (RFC 9449) through real HTTP: oauth4webapi as the client for the happy path (code flow
 * with DPoP-bound tokens, userinfo, refresh bound to the key, introspection's cnf.jkt), and
 * hand-made proofs (jose) for the refusals the spec names: replay, wrong htu / htm, stale iat,
 * missing or wrong ath, another key, a private key in the header, a bound token sent as Bearer, a
 * refresh with another key, and a client that registered dpop_bound_access_tokens.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import * as oauth from "oauth4webapi";
import { Browser, authorize } from "../helpers/browser.ts";
import { authorization_url, basic, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { access_token_hash } from "../../src/oidc/tokens/dpop.ts";
import { random_token } from "../../src/oidc/crypto/secrets.ts";
import { token_hash } from "../../src/oidc/tokens/access_and_refresh.ts";

let t: TestProvider;
let as: oauth.AuthorizationServer;
let app: { client_id: string };
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  t = await start_provider();
  as = await oauth.processDiscoveryResponse(new URL(t.issuer), await oauth.discoveryRequest(new URL(t.issuer), insecure));
  const added = await t.add_client({ client_name: "SPA", token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], skip_consent: true });
  app = { client_id: added.client.client_id };
});
afterAll(() => t.stop());

type Tokens = { access_token: string; refresh_token: string; token_type: string; sub: string };

/** The code flow of the public client with DPoP key `keys` (oauth4webapi). */
async function dpop_flow(keys: CryptoKeyPair): Promise<Tokens> {
  const DPoP = oauth.DPoP(app as oauth.Client, keys);
  const code = pkce();
  const url = authorization_url(t, { scope: "openid offline_access", code_challenge: code.challenge, code_challenge_method: "S256", prompt: "consent" }, app.client_id);
  const { callback } = await authorize(new Browser(), url, { password: t.password, callback_prefix: REDIRECT_URI });
  const params = oauth.validateAuthResponse(as, app, callback, "st-123");
  const response = await oauth.authorizationCodeGrantRequest(as, app, oauth.None(), params, REDIRECT_URI, code.verifier, { DPoP, ...insecure });
  const tokens = await oauth.processAuthorizationCodeResponse(as, app, response, { expectedNonce: "n-456" });
  const claims = oauth.getValidatedIdTokenClaims(tokens)!;
  return { access_token: tokens.access_token, refresh_token: tokens.refresh_token!, token_type: tokens.token_type, sub: claims.sub };
}

type ProofKey = { privateKey: CryptoKey; jwk: JWK };

async function proof_key(): Promise<ProofKey> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { privateKey, jwk: await exportJWK(publicKey) };
}

/** A hand-made proof; `claims` and `header` override the correct values. */
async function proof(key: ProofKey, htm: string, path: string, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ jti: random_token(16), htm, htu: `${t.issuer}${path}`, iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: key.jwk, ...header })
    .sign(key.privateKey);
}

async function userinfo(token: string, scheme: string, dpop?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `${scheme} ${token}` };
  if (dpop !== undefined) headers.dpop = dpop;
  return fetch(new URL("/userinfo", t.url), { headers });
}

async function refresh(refresh_token: string, dpop?: string): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (dpop !== undefined) headers.dpop = dpop;
  return fetch(new URL("/token", t.url), {
    method: "POST",
    headers,
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token, client_id: app.client_id }).toString(),
  });
}

async function error_of(response: Response): Promise<string> {
  return ((await response.json()) as { error: string }).error;
}

describe("DPoP with oauth4webapi", () => {
  test("discovery advertises dpop_signing_alg_values_supported", () => {
    expect(as.dpop_signing_alg_values_supported).toEqual(["ES256", "PS256", "RS256", "EdDSA"]);
  });

  test("code flow: DPoP tokens, userinfo with a proof, introspection shows cnf.jkt, refresh bound to the key", async () => {
    const keys = await oauth.generateKeyPair("ES256");
    const DPoP = oauth.DPoP(app as oauth.Client, keys);
    const tokens = await dpop_flow(keys);
    expect(tokens.token_type).toBe("dpop");
    const info = await oauth.processUserInfoResponse(as, app, tokens.sub, await oauth.userInfoRequest(as, app, tokens.access_token, { DPoP, ...insecure }));
    expect(info.sub).toBe(t.user.id);

    const jkt = await calculateJwkThumbprint((await exportJWK(keys.publicKey)) as JWK, "sha256");
    const introspection = await fetch(new URL("/introspect", t.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(t.client.client_id, t.secret) },
      body: new URLSearchParams({ token: tokens.access_token }).toString(),
    });
    // The test client is not the token's client: it learns nothing unless it is a resource server.
    expect(await introspection.json()).toEqual({ active: false });
    const stored = await t.store.get_token(token_hash(tokens.access_token)!);
    expect(stored!.jkt).toBe(jkt);
    const { client: api, secret } = await t.add_client({ client_name: "API", token_endpoint_auth_method: "client_secret_basic", resource_server: true });
    const by_api = await fetch(new URL("/introspect", t.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(api.client_id, secret!) },
      body: new URLSearchParams({ token: tokens.access_token }).toString(),
    });
    const body = (await by_api.json()) as { active: boolean; token_type: string; cnf: { jkt: string } };
    expect(body.active).toBe(true);
    expect(body.token_type).toBe("DPoP");
    expect(body.cnf).toEqual({ jkt });

    // RFC 9449 §5: the public client's refresh token is bound to the key.
    const refreshed = await oauth.processRefreshTokenResponse(as, app, await oauth.refreshTokenGrantRequest(as, app, oauth.None(), tokens.refresh_token, { DPoP, ...insecure }));
    expect(refreshed.token_type).toBe("dpop");
    const again = await oauth.userInfoRequest(as, app, refreshed.access_token, { DPoP, ...insecure });
    expect(again.status).toBe(200);
  });
});

describe("DPoP refusals", () => {
  let tokens: Tokens;
  let key: ProofKey;
  beforeAll(async () => {
    const keys = await oauth.generateKeyPair("ES256", { extractable: true });
    tokens = await dpop_flow(keys);
    key = { privateKey: keys.privateKey, jwk: await exportJWK(keys.publicKey) };
  });

  test("a correct hand-made proof is accepted at userinfo", async () => {
    const response = await userinfo(tokens.access_token, "DPoP", await proof(key, "GET", "/userinfo", { ath: access_token_hash(tokens.access_token) }));
    expect(response.status).toBe(200);
  });

  test("a DPoP-bound token sent as Bearer: 401 with a DPoP invalid_token challenge", async () => {
    const response = await userinfo(tokens.access_token, "Bearer");
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate")!;
    expect(challenge).toStartWith("DPoP ");
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain('algs="ES256 PS256 RS256 EdDSA"');
  });

  test("a replayed proof is refused (jti seen)", async () => {
    const once = await proof(key, "GET", "/userinfo", { ath: access_token_hash(tokens.access_token) });
    expect((await userinfo(tokens.access_token, "DPoP", once)).status).toBe(200);
    const replay = await userinfo(tokens.access_token, "DPoP", once);
    expect(replay.status).toBe(401);
    expect(replay.headers.get("www-authenticate")).toContain('error="invalid_dpop_proof"');
    expect(await error_of(replay)).toBe("invalid_dpop_proof");
  });

  test("wrong htu, wrong htm, stale iat, missing ath, private key, symmetric alg, wrong typ: invalid_dpop_proof", async () => {
    const ath = access_token_hash(tokens.access_token);
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const private_jwk = await exportJWK(privateKey);
    const bad = [
      await proof(key, "GET", "/token", { ath }),
      await proof(key, "GET", "/userinfo", { ath, htu: "http://evil.example/userinfo" }),
      await proof(key, "POST", "/userinfo", { ath }),
      await proof(key, "GET", "/userinfo", { ath, iat: Math.floor(Date.now() / 1000) - 600 }),
      await proof(key, "GET", "/userinfo", { ath, iat: Math.floor(Date.now() / 1000) + 600 }),
      await proof(key, "GET", "/userinfo"),
      await proof(key, "GET", "/userinfo", { ath: access_token_hash("another token") }),
      await proof({ privateKey, jwk: private_jwk }, "GET", "/userinfo", { ath }),
      await proof(key, "GET", "/userinfo", { ath }, { typ: "JWT" }),
      await new SignJWT({ jti: "x", htm: "GET", htu: `${t.issuer}/userinfo`, iat: Math.floor(Date.now() / 1000), ath })
        .setProtectedHeader({ alg: "HS256", typ: "dpop+jwt", jwk: { kty: "oct", k: "c2VjcmV0" } as { kty: string } })
        .sign(new TextEncoder().encode("secret")),
      "not.a.jwt",
    ];
    for (const [index, dpop] of bad.entries()) {
      const response = await userinfo(tokens.access_token, "DPoP", dpop);
      expect({ index, status: response.status }).toEqual({ index, status: 401 });
      expect({ index, error: await error_of(response) }).toEqual({ index, error: "invalid_dpop_proof" });
    }
    // The query of htu is ignored (RFC 9449 §4.3), a normalised URL matches.
    const with_query = await userinfo(
      tokens.access_token,
      "DPoP",
      await proof(key, "GET", "/userinfo", { ath, htu: `${t.issuer.toUpperCase().replace("HTTP://", "http://")}/userinfo?x=1#f` }),
    );
    expect(with_query.status).toBe(200);
  });

  test("a proof by another key than the token is bound to: invalid_token", async () => {
    const other = await proof_key();
    const response = await userinfo(tokens.access_token, "DPoP", await proof(other, "GET", "/userinfo", { ath: access_token_hash(tokens.access_token) }));
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toStartWith("DPoP ");
    expect(await error_of(response)).toBe("invalid_token");
  });

  test("DPoP credentials without a proof: invalid_dpop_proof", async () => {
    const response = await userinfo(tokens.access_token, "DPoP");
    expect(response.status).toBe(401);
    expect(await error_of(response)).toBe("invalid_dpop_proof");
  });

  test("a bound refresh token needs a proof of its key; a refused refresh does not spend it", async () => {
    const other = await proof_key();
    const without = await refresh(tokens.refresh_token);
    expect(without.status).toBe(400);
    expect(await error_of(without)).toBe("invalid_dpop_proof");
    const wrong_key = await refresh(tokens.refresh_token, await proof(other, "POST", "/token"));
    expect(wrong_key.status).toBe(400);
    expect(await error_of(wrong_key)).toBe("invalid_grant");
    // Audited: a bound refresh token without a proof of its key may have been stolen.
    const events = await t.store.list_audit_events({ type: "dpop_key_mismatch", client_id: app.client_id });
    expect(events.map((event) => event.details)).toEqual([{ proof: "other_key" }, { proof: "missing" }]);
    const wrong_htu = await refresh(tokens.refresh_token, await proof(key, "POST", "/userinfo"));
    expect(await error_of(wrong_htu)).toBe("invalid_dpop_proof");
    const right = await refresh(tokens.refresh_token, await proof(key, "POST", "/token"));
    expect(right.status).toBe(200);
    expect(((await right.json()) as { token_type: string }).token_type).toBe("DPoP");
  });

  test("a client registered with dpop_bound_access_tokens must send a proof", async () => {
    const { client, secret } = await t.add_client({
      client_name: "Bound",
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["client_credentials"],
      dpop_bound_access_tokens: true,
    });
    const request = (dpop?: string) =>
      fetch(new URL("/token", t.url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(client.client_id, secret!), ...(dpop === undefined ? {} : { dpop }) },
        body: "grant_type=client_credentials",
      });
    const without = await request();
    expect(without.status).toBe(400);
    expect(await error_of(without)).toBe("invalid_dpop_proof");
    const with_proof = await request(await proof(key, "POST", "/token"));
    expect(with_proof.status).toBe(200);
    expect(((await with_proof.json()) as { token_type: string }).token_type).toBe("DPoP");
  });

  test("dpop_jkt binds the code: redeemed only with a proof of that key (RFC 9449 §10)", async () => {
    const jkt = await calculateJwkThumbprint(key.jwk, "sha256");
    const code_for = async () => {
      const challenge = pkce();
      const url = authorization_url(t, { scope: "openid", code_challenge: challenge.challenge, code_challenge_method: "S256", dpop_jkt: jkt }, app.client_id);
      const { callback } = await authorize(new Browser(), url, { password: t.password, callback_prefix: REDIRECT_URI });
      return { code: callback.searchParams.get("code")!, verifier: challenge.verifier };
    };
    const redeem = async (grant: { code: string; verifier: string }, dpop?: string) =>
      fetch(new URL("/token", t.url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...(dpop === undefined ? {} : { dpop }) },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: grant.code,
          code_verifier: grant.verifier,
          redirect_uri: REDIRECT_URI,
          client_id: app.client_id,
        }).toString(),
      });
    const other = await redeem(await code_for(), await proof(await proof_key(), "POST", "/token"));
    expect(await error_of(other)).toBe("invalid_dpop_proof");
    const none = await redeem(await code_for());
    expect(await error_of(none)).toBe("invalid_dpop_proof");
    const right = await redeem(await code_for(), await proof(key, "POST", "/token"));
    expect(right.status).toBe(200);
    const bad_param = await fetch(authorization_url(t, { code_challenge: pkce().challenge, code_challenge_method: "S256", dpop_jkt: "short" }, app.client_id), {
      redirect: "manual",
    });
    expect(new URL(bad_param.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });
});
