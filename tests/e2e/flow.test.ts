/**
 * The authorization code flow end to end with openid-client v6 as the relying party: discovery,
 * PKCE + state + nonce, the login and consent pages driven over HTTP, the code exchange with
 * full ID Token validation against our JWKS, and userinfo. Only HTTP and the E2eProvider
 * interface are used, so it runs unchanged against the compiled executable.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { Browser, authorize } from "../helpers/browser.ts";
import { REDIRECT_URI } from "../helpers/provider.ts";
import { start_target, type E2eProvider } from "../helpers/target.ts";
import { rejection } from "../helpers/settle.ts";

// The same suite runs against the in-process server and, in CI, the compiled executable
// (IDP_E2E_TARGET=binary:/path/to/idp; see tests/helpers/target.ts).
let t: E2eProvider;
beforeAll(async () => {
  t = await start_target();
}, 60_000);
afterAll(() => t.stop());

const insecure = { execute: [client.allowInsecureRequests] };

type Flow = { tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers; claims: client.IDToken | undefined; userinfo: client.UserInfoResponse | null };

/** One complete flow; userinfo only when openid was requested. */
async function run_flow(config: client.Configuration, scope: string, browser = new Browser()): Promise<Flow> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const oidc = scope.split(" ").includes("openid");
  // A nonce only makes sense with an ID Token (openid-client then requires one).
  const nonce = oidc ? client.randomNonce() : undefined;
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    ...(nonce ? { nonce } : {}),
  });
  const { callback } = await authorize(browser, url.href, { password: t.password, callback_prefix: REDIRECT_URI });
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    ...(nonce ? { expectedNonce: nonce } : {}),
    idTokenExpected: oidc,
  });
  const claims = tokens.claims();
  const userinfo = claims ? await client.fetchUserInfo(config, tokens.access_token, claims.sub) : null;
  return { tokens, claims, userinfo };
}

const PROTOCOL_CLAIMS = ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "amr", "sid"];

function user_claims(object: Record<string, unknown>): string[] {
  return Object.keys(object)
    .filter((k) => !PROTOCOL_CLAIMS.includes(k))
    .sort();
}

describe("openid-client, client_secret_basic", () => {
  let config: client.Configuration;
  beforeAll(async () => {
    config = await client.discovery(new URL(t.issuer), t.client.client_id, undefined, client.ClientSecretBasic(t.secret), insecure);
  });

  test("discovery gives our issuer and endpoints", () => {
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(t.issuer);
    expect(meta.token_endpoint).toBe(`${t.issuer}/token`);
    expect(meta.code_challenge_methods_supported).toEqual(["S256"]);
  });

  test("scope openid: a validated ID Token with the protocol claims, only sub from userinfo", async () => {
    const { tokens, claims, userinfo } = await run_flow(config, "openid");
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.scope).toBe("openid");
    expect(claims!.iss).toBe(t.issuer);
    expect(claims!.aud).toBe(t.client.client_id);
    expect(claims!.sub).toBe(t.user.id);
    expect(typeof claims!.auth_time).toBe("number");
    expect(typeof claims!.at_hash).toBe("string");
    expect(user_claims(claims!)).toEqual([]);
    expect(userinfo).toEqual({ sub: t.user.id });
  });

  test("scope profile releases the profile claims the user has, and no email/phone/address", async () => {
    const { claims, userinfo } = await run_flow(config, "openid profile");
    const profile = ["family_name", "given_name", "name", "picture", "preferred_username", "updated_at"];
    expect(user_claims(claims!)).toEqual(profile);
    expect(claims!.name).toBe("Alice Liddell");
    expect(user_claims(userinfo!)).toEqual(profile);
    expect(userinfo!.sub).toBe(t.user.id);
    expect(userinfo!.preferred_username).toBe("alice");
  });

  test("scope email releases email and email_verified only", async () => {
    const { claims, userinfo } = await run_flow(config, "openid email");
    expect(user_claims(claims!)).toEqual(["email", "email_verified"]);
    expect(claims!.email).toBe("alice@example.com");
    expect(claims!.email_verified).toBe(true);
    expect(userinfo).toEqual({ sub: t.user.id, email: "alice@example.com", email_verified: true });
  });

  test("scope address releases the address only", async () => {
    const { claims, userinfo } = await run_flow(config, "openid address");
    expect(user_claims(claims!)).toEqual(["address"]);
    expect(userinfo).toEqual({ sub: t.user.id, address: { street_address: "1 Rabbit Hole", locality: "Oxford", postal_code: "OX1", country: "GB" } });
  });

  test("scope phone releases phone_number and phone_number_verified only", async () => {
    const { claims, userinfo } = await run_flow(config, "openid phone");
    expect(user_claims(claims!)).toEqual(["phone_number", "phone_number_verified"]);
    expect(userinfo).toEqual({ sub: t.user.id, phone_number: "+1 555 0100", phone_number_verified: false });
  });

  test("all scopes together; the second authorization in the same browser skips login and consent", async () => {
    const { client: fresh, secret } = await t.add_client({ client_name: "Fresh", token_endpoint_auth_method: "client_secret_basic" });
    const fresh_config = await client.discovery(new URL(t.issuer), fresh.client_id, undefined, client.ClientSecretBasic(secret!), insecure);
    const browser = new Browser();
    const first = await run_flow(fresh_config, "openid profile email address phone", browser);
    expect(user_claims(first.userinfo!).length).toBe(11);
    const pages = () => browser.history.filter((h) => h.url.includes("/interaction/")).length;
    // login GET+POST, consent GET+POST
    expect(pages()).toBe(4);
    const second = await run_flow(fresh_config, "openid email", browser);
    expect(second.claims!.sub).toBe(t.user.id);
    // Signed in (session cookie) and already granted: straight back to the client.
    expect(pages()).toBe(4);
  });

  test("without openid it is plain OAuth 2.0: no ID Token, userinfo refuses the token", async () => {
    const { tokens } = await run_flow(config, "profile");
    expect(tokens.id_token).toBeUndefined();
    const response = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });
});

describe("openid-client, other client types", () => {
  test("public client: auth method none with PKCE", async () => {
    const { client: pub } = await t.add_client({ client_name: "SPA", token_endpoint_auth_method: "none" });
    const config = await client.discovery(new URL(t.issuer), pub.client_id, undefined, client.None(), insecure);
    const { claims, userinfo } = await run_flow(config, "openid email");
    expect(claims!.aud).toBe(pub.client_id);
    expect(userinfo!.email).toBe("alice@example.com");
  });

  test("client_secret_post (openid-client's default for a secret)", async () => {
    const { client: post, secret } = await t.add_client({ client_name: "Post", token_endpoint_auth_method: "client_secret_post" });
    const config = await client.discovery(new URL(t.issuer), post.client_id, secret!, undefined, insecure);
    const { claims, userinfo } = await run_flow(config, "openid profile");
    expect(claims!.aud).toBe(post.client_id);
    expect(userinfo!.name).toBe("Alice Liddell");
  });

  test("a client registered for ES256 ID Tokens gets them, verified against the JWKS", async () => {
    const { client: es, secret } = await t.add_client({ client_name: "ES", token_endpoint_auth_method: "client_secret_basic", id_token_signed_response_alg: "ES256" });
    const config = await client.discovery(new URL(t.issuer), es.client_id, { id_token_signed_response_alg: "ES256" }, client.ClientSecretBasic(secret!), insecure);
    const { tokens } = await run_flow(config, "openid");
    const header = JSON.parse(Buffer.from(tokens.id_token!.split(".")[0]!, "base64url").toString()) as { alg: string; kid: string };
    expect(header.alg).toBe("ES256");
    expect(typeof header.kid).toBe("string");
  });
});

describe("openid-client, pushed authorization requests (RFC 9126) and DPoP (RFC 9449)", () => {
  test("a public client pushes its request with a DPoP proof, gets DPoP-bound tokens, refreshes with its key", async () => {
    const { client: spa } = await t.add_client({ client_name: "PAR SPA", token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] });
    const config = await client.discovery(new URL(t.issuer), spa.client_id, undefined, client.None(), insecure);
    expect(config.serverMetadata().pushed_authorization_request_endpoint).toBe(`${t.issuer}/par`);
    const DPoP = client.getDPoPHandle(config, await client.randomDPoPKeyPair("ES256"));
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = await client.buildAuthorizationUrlWithPAR(
      config,
      {
        redirect_uri: REDIRECT_URI,
        scope: "openid offline_access",
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce,
        prompt: "consent",
      },
      { DPoP },
    );
    expect([...url.searchParams.keys()].sort()).toEqual(["client_id", "request_uri"]);
    const { callback } = await authorize(new Browser(), url.href, { password: t.password, callback_prefix: REDIRECT_URI });
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce }, undefined, { DPoP });
    expect(tokens.token_type).toBe("dpop");
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub, { DPoP });
    expect(userinfo.sub).toBe(t.user.id);
    // RFC 9449 §7.2: the DPoP-bound token is refused as a Bearer token.
    const as_bearer = await fetch(`${t.issuer}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(as_bearer.status).toBe(401);
    expect(as_bearer.headers.get("www-authenticate")).toStartWith('DPoP realm="');
    // RFC 9449 §5: the refresh token is bound to the key: only this DPoP handle can use it.
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
    expect(refreshed.token_type).toBe("dpop");
    const other = client.getDPoPHandle(config, await client.randomDPoPKeyPair("ES256"));
    expect(await rejection(client.refreshTokenGrant(config, refreshed.refresh_token!, undefined, { DPoP: other }))).toBeInstanceOf(Error);
    // RFC 9126 §4: the request_uri was single use.
    const replay = await fetch(url.href, { headers: { accept: "application/json" }, redirect: "manual" });
    expect(replay.status).toBe(400);
  });
});
