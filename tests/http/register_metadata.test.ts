/**
 * Invalid client metadata at POST /register: one test per rule, each expecting the RFC 7591
 * §3.2.2 error code (invalid_redirect_uri or invalid_client_metadata) with status 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { validate_metadata } from "../../src/oidc/registration/validate.ts";
import type { RegistrationPolicy } from "../../src/oidc/registration/policy.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { WEB_CLIENT, expect_error, register, registered, type Json } from "./register_helpers.ts";

let t: TestProvider;
beforeAll(async () => {
  // More registrations than one address may make a minute by default (60): this file sends one a test.
  t = await start_provider({ config: { registration: "open", rate_limits: { register_per_ip: 500 } } });
});
afterAll(() => t.stop());

const with_ = (extra: Json) => register(t, { ...WEB_CLIENT, ...extra });
const redirect_error = async (extra: Json) => expect_error(await with_(extra), "invalid_redirect_uri");
const metadata_error = async (extra: Json) => expect_error(await with_(extra), "invalid_client_metadata");

describe("invalid_redirect_uri", () => {
  test("redirect_uris missing with the authorization_code grant (OIDC Registration §2)", async () => {
    expect(await expect_error(await register(t, { client_name: "No URIs" }), "invalid_redirect_uri")).toContain("redirect_uris is required");
  });
  test("redirect_uris empty", async () => {
    await redirect_error({ redirect_uris: [] });
  });
  test("redirect_uris not an array", async () => {
    await redirect_error({ redirect_uris: REDIRECT_URI });
  });
  test("a fragment in a redirect URI (RFC 6749 §3.1.2)", async () => {
    expect(await redirect_error({ redirect_uris: ["https://rp.example.com/cb#frag"] })).toContain("fragment");
  });
  test("a relative redirect URI", async () => {
    await redirect_error({ redirect_uris: ["/callback"] });
  });
  test("http on a non-loopback host for a web client", async () => {
    expect(await redirect_error({ redirect_uris: ["http://rp.example.com/cb"] })).toContain("http");
  });
  test("http on a loopback host is accepted for a web client (RFC 8252 §7.3)", async () => {
    expect((await registered(t, { ...WEB_CLIENT, redirect_uris: ["http://localhost:3000/cb"] })).redirect_uris).toEqual(["http://localhost:3000/cb"]);
  });
  test("a custom scheme for a web client", async () => {
    await redirect_error({ redirect_uris: ["com.example.app:/cb"] });
  });
  test("a native client with http on a non-loopback host", async () => {
    await redirect_error({ application_type: "native", redirect_uris: ["http://rp.example.com/cb"] });
  });
  test("a native client with a javascript: URI", async () => {
    await redirect_error({ application_type: "native", redirect_uris: ["javascript:alert(1)"] });
  });
  test("user credentials in a redirect URI", async () => {
    await redirect_error({ redirect_uris: ["https://user:pw@rp.example.com/cb"] });
  });
});

describe("invalid_client_metadata: client authentication", () => {
  test("an unknown token_endpoint_auth_method", async () => {
    expect(await metadata_error({ token_endpoint_auth_method: "magic" })).toContain("token_endpoint_auth_method");
  });
  test("an unsupported token_endpoint_auth_method (client_secret_jwt)", async () => {
    await metadata_error({ token_endpoint_auth_method: "client_secret_jwt" });
  });
  test("private_key_jwt without jwks or jwks_uri", async () => {
    expect(await metadata_error({ token_endpoint_auth_method: "private_key_jwt" })).toContain("jwks");
  });
  test("both jwks and jwks_uri (RFC 7591 §2)", async () => {
    const jwks = { keys: [{ kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" }] };
    expect(await metadata_error({ jwks, jwks_uri: "https://rp.example.com/jwks.json" })).toContain("both");
  });
  test("jwks with private key members", async () => {
    expect(await metadata_error({ jwks: { keys: [{ kty: "EC", crv: "P-256", x: "a", y: "b", d: "secret" }] } })).toContain("private");
  });
  test("jwks with a symmetric key", async () => {
    await metadata_error({ jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } });
  });
  test("jwks key without kty", async () => {
    await metadata_error({ jwks: { keys: [{ x: "a" }] } });
  });
  test("jwks with no keys", async () => {
    await metadata_error({ jwks: { keys: [] } });
  });
  // Abuse case: open registration stores what it is given (issue 27, finding 9).
  const EC_KEY = { kty: "EC", crv: "P-256", x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0" };
  test("jwks padded with a member no key type defines (a 60 KB key is not stored)", async () => {
    expect(await metadata_error({ jwks: { keys: [{ ...EC_KEY, padding: "A".repeat(60_000) }] } })).toContain("at most 8192");
    expect(await metadata_error({ jwks: { keys: [{ ...EC_KEY, padding: "A".repeat(100) }] } })).toContain('member "padding"');
  });
  test("jwks larger than 8 KiB, or with more than 10 keys", async () => {
    expect(await metadata_error({ jwks: { keys: [{ ...EC_KEY, x5c: ["A".repeat(9000)] }] } })).toContain("at most 8192");
    expect(await metadata_error({ jwks: { keys: Array.from({ length: 11 }, (_, i) => ({ ...EC_KEY, kid: `k${i}` })) } })).toContain("at most 10");
  });
  test("jwks with a key that does not import, or an RSA key under 2048 bits", async () => {
    expect(await metadata_error({ jwks: { keys: [{ kty: "EC", crv: "P-256", x: "a", y: "b" }] } })).toContain("not a valid EC public key");
    const small = (await crypto.subtle.exportKey(
      "jwk",
      (
        await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"])
      ).publicKey,
    )) as Json;
    const { kty, n, e } = small as { kty: string; n: string; e: string };
    expect(await metadata_error({ jwks: { keys: [{ kty, n, e }] } })).toContain("2048 bits");
  });
  test("a public key with only the members its type defines is accepted", async () => {
    const res = await with_({ jwks: { keys: [{ ...EC_KEY, kid: "k1", use: "sig", alg: "ES256" }] }, token_endpoint_auth_method: "private_key_jwt" });
    expect(res.status).toBe(201);
  });
  test("jwks_uri over http", async () => {
    await metadata_error({ jwks_uri: "http://rp.example.com/jwks.json" });
  });
});

describe("invalid_client_metadata: grant and response types", () => {
  test("an unsupported grant type (password)", async () => {
    expect(await metadata_error({ grant_types: ["authorization_code", "password"] })).toContain("password");
  });
  test("the implicit grant", async () => {
    await metadata_error({ grant_types: ["implicit"], response_types: ["id_token"] });
  });
  test("an unsupported response type (token)", async () => {
    expect(await metadata_error({ response_types: ["code", "token"] })).toContain("token");
  });
  test("authorization_code without the code response type (RFC 7591 §2.1)", async () => {
    expect(await metadata_error({ grant_types: ["authorization_code"], response_types: [] })).toContain("RFC 7591 §2.1");
  });
  test("empty grant_types", async () => {
    await metadata_error({ grant_types: [] });
  });
  test("an unknown application_type", async () => {
    await metadata_error({ application_type: "desktop" });
  });
});

describe("invalid_client_metadata: ID Token algorithm", () => {
  test("an alg the keyring does not have (PS256 on an RS256+ES256 provider)", async () => {
    expect(await metadata_error({ id_token_signed_response_alg: "PS256" })).toContain("PS256");
  });
  test("a symmetric alg (HS256)", async () => {
    await metadata_error({ id_token_signed_response_alg: "HS256" });
  });
  test("none is refused", async () => {
    expect(await metadata_error({ id_token_signed_response_alg: "none" })).toContain("none");
  });
  test("encrypted ID Tokens are refused, not ignored", async () => {
    await metadata_error({ id_token_encrypted_response_alg: "RSA-OAEP" });
  });
  test("signed UserInfo with an alg the keyring lacks, or none, is refused; encrypted UserInfo is refused, not ignored", async () => {
    expect(await metadata_error({ userinfo_signed_response_alg: "PS256" })).toContain("userinfo_signed_response_alg");
    expect(await metadata_error({ userinfo_signed_response_alg: "none" })).toContain("userinfo_signed_response_alg");
    await metadata_error({ userinfo_encrypted_response_alg: "RSA-OAEP" });
  });
  test("pairwise subjects are refused without a pairwise salt (IDP_PAIRWISE_SALT)", async () => {
    await metadata_error({ subject_type: "pairwise" });
  });
});

describe("invalid_client_metadata: URLs", () => {
  for (const field of ["logo_uri", "client_uri", "policy_uri", "tos_uri"]) {
    test(`${field} over http on a public host`, async () => {
      expect(await metadata_error({ [field]: "http://rp.example.com/x" })).toContain(field);
    });
    test(`${field} that is not a URL`, async () => {
      await metadata_error({ [field]: "not a url" });
    });
  }
  test("a javascript: logo_uri", async () => {
    await metadata_error({ logo_uri: "javascript:alert(1)" });
  });
  test("loopback http links are fine in development", async () => {
    expect((await registered(t, { ...WEB_CLIENT, logo_uri: "http://localhost:8080/logo.png" })).logo_uri).toBe("http://localhost:8080/logo.png");
  });
  test("a post_logout_redirect_uri with a fragment", async () => {
    expect(await metadata_error({ post_logout_redirect_uris: ["https://rp.example.com/bye#x"] })).toContain("post_logout_redirect_uris");
  });
  test("a backchannel_logout_uri over http", async () => {
    await metadata_error({ backchannel_logout_uri: "http://rp.example.com/bc" });
  });
  test("a backchannel_logout_uri with a fragment", async () => {
    await metadata_error({ backchannel_logout_uri: "https://rp.example.com/bc#x" });
  });
});

describe("invalid_client_metadata: types and values", () => {
  test("client_name is not a string", async () => {
    expect(await metadata_error({ client_name: 42 })).toContain("client_name");
  });
  test("contacts is not an array", async () => {
    await metadata_error({ contacts: "ops@rp.example.com" });
  });
  test("default_max_age is negative", async () => {
    await metadata_error({ default_max_age: -1 });
  });
  test("default_max_age is a string", async () => {
    await metadata_error({ default_max_age: "3600" });
  });
  test("require_auth_time is not a boolean", async () => {
    await metadata_error({ require_auth_time: "yes" });
  });
  test("scope with a value this provider does not offer", async () => {
    expect(await metadata_error({ scope: "openid admin" })).toContain("admin");
  });
  test("scope with characters RFC 6749 §3.3 forbids", async () => {
    await metadata_error({ scope: 'openid "quoted"' });
  });
  test("software statements are not supported", async () => {
    await metadata_error({ software_statement: "eyJhbGciOiJSUzI1NiJ9.e30.sig" });
  });
});

describe("the body", () => {
  test("a form body instead of JSON is invalid_client_metadata", async () => {
    const response = await register(t, `redirect_uris=${encodeURIComponent(REDIRECT_URI)}`, { content_type: "application/x-www-form-urlencoded" });
    expect(await expect_error(response, "invalid_client_metadata")).toContain("application/json");
  });
  test("no body is invalid_client_metadata", async () => {
    const response = await fetch(`${t.url}/register`, { method: "POST", headers: { accept: "application/json" } });
    await expect_error(response, "invalid_client_metadata");
  });
  test("malformed JSON is invalid_request in the protocol's shape, not cached", async () => {
    const response = await register(t, "{not json");
    expect(response.headers.get("cache-control")).toBe("no-store");
    await expect_error(response, "invalid_request");
  });
  test("a JSON array is invalid_request", async () => {
    await expect_error(await register(t, "[]"), "invalid_request");
  });
});

describe("validate_metadata in production", () => {
  const policy: RegistrationPolicy = {
    auth_methods: ["client_secret_basic", "none"],
    grant_types: ["authorization_code"],
    response_types: ["code"],
    scopes: ["openid"],
    signing_algs: ["RS256"],
    request_object_algs: ["none", "RS256"],
    assertion_algs: ["RS256"],
    acr_values: ["mfa", "pwd"],
    production: true,
  };
  test("loopback http links are refused in production", () => {
    expect(() => validate_metadata({ redirect_uris: [REDIRECT_URI], logo_uri: "http://localhost/logo.png" }, policy)).toThrow("logo_uri");
  });
  test("https links are fine in production", () => {
    expect(validate_metadata({ redirect_uris: [REDIRECT_URI], logo_uri: "https://rp.example.com/logo.png" }, policy).logo_uri).toBe("https://rp.example.com/logo.png");
  });
});
