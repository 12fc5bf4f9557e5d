/**
 * The server-wide FAPI 2.0 switch (IDP_FAPI=2.0, src/oidc/clients/fapi.ts) on a running server: discovery
 * as served, a client registered before the switch (client_secret_basic, RS256 ID Tokens)
 * refused, and registration applying the profile to every client.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import * as oauth from "oauth4webapi";
import { basic } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { register } from "./register_helpers.ts";

let t: TestProvider;
let as: oauth.AuthorizationServer;
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  t = await start_provider({ config: { fapi: "2.0", registration: "open" } });
  as = await oauth.processDiscoveryResponse(new URL(t.issuer), await oauth.discoveryRequest(new URL(t.issuer), insecure));
});
afterAll(() => t.stop());

describe("IDP_FAPI=2.0", () => {
  test("discovery as served lists only what the profile allows", () => {
    expect(as.token_endpoint_auth_methods_supported).toEqual(["private_key_jwt"]);
    expect(as.token_endpoint_auth_signing_alg_values_supported).toEqual(["PS256", "ES256", "EdDSA"]);
    expect(as.require_pushed_authorization_requests).toBe(true);
    expect(as.id_token_signing_alg_values_supported).toEqual(["ES256"]);
    expect(as.response_modes_supported).not.toContain("form_post");
    expect(as.grant_types_supported).not.toContain("urn:ietf:params:oauth:grant-type:device_code");
    expect(as.device_authorization_endpoint).toBeUndefined();
  });

  test("a client registered before the switch (client_secret_basic) is refused at /par and /token", async () => {
    const form = new URLSearchParams({
      response_type: "code",
      redirect_uri: REDIRECT_URI,
      scope: "openid",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    for (const path of ["/par", "/token"]) {
      const response = await fetch(new URL(path, t.url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(t.client.client_id, t.secret) },
        body: path === "/par" ? form : new URLSearchParams({ grant_type: "client_credentials" }),
      });
      const body = (await response.json()) as { error: string; error_description: string };
      expect({ path, status: response.status, error: body.error }).toEqual({ path, status: 401, error: "invalid_client" });
      expect(body.error_description).toContain("private_key_jwt (FAPI 2.0");
    }
  });

  test("its authorization requests are refused too: they must be pushed", async () => {
    const url = new URL("/authorize", t.url);
    for (const [name, value] of Object.entries({ client_id: t.client.client_id, redirect_uri: REDIRECT_URI, response_type: "code", scope: "openid" }))
      url.searchParams.set(name, value);
    const response = await fetch(url, { redirect: "manual" });
    const location = new URL(response.headers.get("location")!);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toContain("pushed");
  });

  test("a private_key_jwt client registered before the switch with RS256 ID Tokens is refused at /par, naming the member", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const { client } = await t.add_client({
      token_endpoint_auth_method: "private_key_jwt",
      jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: "k" }] },
      id_token_signed_response_alg: "RS256",
    });
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: "ES256", kid: "k" })
      .setIssuer(client.client_id)
      .setSubject(client.client_id)
      .setAudience(t.issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(privateKey);
    const form = new URLSearchParams({
      response_type: "code",
      redirect_uri: REDIRECT_URI,
      scope: "openid",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: assertion,
    });
    const response = await fetch(new URL("/par", t.url), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
    const body = (await response.json()) as { error: string; error_description: string };
    expect({ status: response.status, error: body.error }).toEqual({ status: 400, error: "unauthorized_client" });
    expect(body.error_description).toContain("id_token_signed_response_alg RS256 is not allowed under FAPI 2.0");
  });

  test("registration applies the profile without fapi_profile: a secret client is refused", async () => {
    const response = await register(t, { redirect_uris: [REDIRECT_URI] });
    const body = (await response.json()) as { error: string; error_description: string };
    expect({ status: response.status, error: body.error }).toEqual({ status: 400, error: "invalid_client_metadata" });
    expect(body.error_description).toStartWith("token_endpoint_auth_method: must be private_key_jwt");
  });
});
