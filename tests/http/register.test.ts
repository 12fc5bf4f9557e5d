/**
 * POST /register (RFC 7591 §3, OIDC Registration §3): the response, the stored client, and proof
 * that the issued credentials work — at /token directly and through a full code flow run by
 * openid-client as the relying party.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import * as oidc from "openid-client";
import { sha256 } from "../../src/oidc/crypto/secrets.ts";
import { authorize, Browser } from "../helpers/browser.ts";
import { get_code, redeem } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { WEB_CLIENT, register, registered } from "./register_helpers.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { registration: "open" } });
});
afterAll(() => t.stop());

const insecure = { execute: [oidc.allowInsecureRequests] };

describe("POST /register", () => {
  test("201 with credentials, registration_client_uri and the metadata with defaults applied", async () => {
    const response = await register(t, WEB_CLIENT);
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      client_id: expect.any(String),
      client_secret: expect.any(String),
      client_id_issued_at: expect.any(Number),
      client_secret_expires_at: 0,
      registration_access_token: expect.any(String),
      registration_client_uri: `${t.issuer}/register/${body.client_id}`,
      redirect_uris: [REDIRECT_URI],
      client_name: "Registered App",
      response_types: ["code"],
      grant_types: ["authorization_code"],
      application_type: "web",
      token_endpoint_auth_method: "client_secret_basic",
      id_token_signed_response_alg: "RS256",
    });
    // 256-bit secret, base64url.
    expect(body.client_secret as string).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Math.abs((body.client_id_issued_at as number) - t.clock.now())).toBeLessThan(5);
  });

  test("the secret and the registration access token are stored only as SHA-256", async () => {
    const info = await registered(t);
    const row = (await t.store.get_client(info.client_id))!;
    expect(row.client_secret_hash).toBe(sha256(info.client_secret!));
    expect(row.registration_access_token_hash).toBe(sha256(info.registration_access_token));
    expect(JSON.stringify(row)).not.toContain(info.client_secret!);
    expect(JSON.stringify(row)).not.toContain(info.registration_access_token);
  });

  test("unknown members are ignored and not stored; skip_consent cannot be self-granted (RFC 7591 §2)", async () => {
    const info = await registered(t, { ...WEB_CLIENT, skip_consent: true, favourite_colour: "blue", "client_name#fr": "Appli" });
    const row = (await t.store.get_client(info.client_id))!;
    expect(row.metadata.skip_consent).toBeUndefined();
    expect(row.metadata.favourite_colour).toBeUndefined();
    expect(Object.keys(info)).not.toContain("skip_consent");
    expect(Object.keys(info)).not.toContain("favourite_colour");
  });

  test("null members count as absent", async () => {
    const info = await registered(t, { ...WEB_CLIENT, client_name: null, logo_uri: null });
    expect(info.client_name).toBeUndefined();
    expect(info.logo_uri).toBeUndefined();
  });

  test("all supported members are stored and returned as sent", async () => {
    const metadata = {
      redirect_uris: [REDIRECT_URI, "http://127.0.0.1:8080/cb"],
      post_logout_redirect_uris: ["https://rp.example.com/bye"],
      client_name: "Full",
      client_uri: "https://rp.example.com",
      logo_uri: "https://rp.example.com/logo.png",
      policy_uri: "https://rp.example.com/privacy",
      tos_uri: "https://rp.example.com/terms",
      contacts: ["ops@rp.example.com"],
      token_endpoint_auth_method: "client_secret_post",
      jwks_uri: "https://rp.example.com/jwks.json",
      id_token_signed_response_alg: "ES256",
      default_max_age: 3600,
      require_auth_time: true,
      scope: "openid email",
      backchannel_logout_uri: "https://rp.example.com/backchannel",
      software_id: "4NRB1-0XZABZI9E6-5SM3R",
      software_version: "2.1",
    };
    const info = await registered(t, metadata);
    expect(info).toMatchObject({ ...metadata, application_type: "web", grant_types: ["authorization_code"], response_types: ["code"] });
  });

  test("records client_registered in the audit log, without secrets", async () => {
    const info = await registered(t, { ...WEB_CLIENT, client_name: "Audited" });
    const [event] = await t.store.list_audit_events({ client_id: info.client_id });
    expect(event).toMatchObject({ type: "client_registered", outcome: "success", client_id: info.client_id, details: { client_name: "Audited" } });
    const text = JSON.stringify(event);
    expect(text).not.toContain(info.client_secret!);
    expect(text).not.toContain(info.registration_access_token);
  });

  test("the issued secret works at /token (client_secret_basic)", async () => {
    const info = await registered(t);
    const { code, pkce } = await get_code(t, {}, { client_id: info.client_id });
    const response = await redeem(t, code, pkce!.verifier, { method: "basic", client_id: info.client_id, secret: info.client_secret! });
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as { id_token: string };
    const payload = JSON.parse(Buffer.from(tokens.id_token.split(".")[1]!, "base64url").toString()) as { aud: string };
    expect(payload.aud).toBe(info.client_id);
  });

  test("a wrong secret for a registered client is invalid_client", async () => {
    const info = await registered(t);
    const { code, pkce } = await get_code(t, {}, { client_id: info.client_id });
    const response = await redeem(t, code, pkce!.verifier, { method: "basic", client_id: info.client_id, secret: "not-the-secret" });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: string }).error).toBe("invalid_client");
  });

  test("public client: token_endpoint_auth_method none gets no secret and redeems with PKCE alone", async () => {
    const info = await registered(t, { ...WEB_CLIENT, token_endpoint_auth_method: "none" });
    expect(info.client_secret).toBeUndefined();
    expect(info.client_secret_expires_at).toBeUndefined();
    expect((await t.store.get_client(info.client_id))!.client_secret_hash).toBeNull();
    const { code, pkce } = await get_code(t, {}, { client_id: info.client_id });
    const response = await redeem(t, code, pkce!.verifier, { method: "none", client_id: info.client_id });
    expect(response.status).toBe(200);
  });

  test("native client with a private-use scheme and a loopback redirect URI", async () => {
    const info = await registered(t, { application_type: "native", redirect_uris: ["com.example.app:/callback", "http://127.0.0.1/callback"], token_endpoint_auth_method: "none" });
    expect(info.application_type).toBe("native");
    expect(info.redirect_uris).toEqual(["com.example.app:/callback", "http://127.0.0.1/callback"]);
  });
});

describe("openid-client as the relying party of a freshly registered client", () => {
  async function run_flow(config: oidc.Configuration) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: "openid email",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      nonce,
    });
    const { callback } = await authorize(new Browser(), url.href, { password: t.password, callback_prefix: REDIRECT_URI });
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    const claims = tokens.claims()!;
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    return { claims, userinfo };
  }

  test("discovery advertises the registration endpoint", async () => {
    const config = await oidc.discovery(new URL(t.issuer), "anyone", undefined, oidc.None(), insecure);
    expect(config.serverMetadata().registration_endpoint).toBe(`${t.issuer}/register`);
  });

  test("client_secret_basic: the code flow succeeds with the registered credentials", async () => {
    const info = await registered(t, { ...WEB_CLIENT, client_name: "RP" });
    const config = await oidc.discovery(new URL(t.issuer), info.client_id, undefined, oidc.ClientSecretBasic(info.client_secret!), insecure);
    const { claims, userinfo } = await run_flow(config);
    expect(claims.aud).toBe(info.client_id);
    expect(claims.iss).toBe(t.issuer);
    expect(userinfo).toEqual({ sub: t.user.id, email: "alice@example.com", email_verified: true });
  });

  test("client_secret_post with ES256 ID Tokens, as registered", async () => {
    const info = await registered(t, { ...WEB_CLIENT, token_endpoint_auth_method: "client_secret_post", id_token_signed_response_alg: "ES256" });
    const config = await oidc.discovery(new URL(t.issuer), info.client_id, { id_token_signed_response_alg: "ES256" }, oidc.ClientSecretPost(info.client_secret!), insecure);
    const { claims } = await run_flow(config);
    expect(claims.aud).toBe(info.client_id);
  });

  test("public client (none) with PKCE", async () => {
    const info = await registered(t, { ...WEB_CLIENT, token_endpoint_auth_method: "none" });
    const config = await oidc.discovery(new URL(t.issuer), info.client_id, undefined, oidc.None(), insecure);
    const { claims } = await run_flow(config);
    expect(claims.aud).toBe(info.client_id);
  });
});
