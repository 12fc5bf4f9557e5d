/**
 * The client_credentials grant (RFC 6749 §4.4) with openid-client's clientCredentialsGrant: a
 * confidential client's own access token — no user, no ID Token, no refresh token — within its
 * registered scope.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { secret_key } from "../../src/oidc/crypto/secrets.ts";
import { token_request, userinfo } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { expect_error, register, registered } from "./register_helpers.ts";
import { introspect, rp } from "./token_helpers.ts";
import { ISSUED_SECRET } from "../helpers/shapes.ts";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { registration: "open" } });
});
afterAll(() => t.stop());

async function service(metadata: Record<string, unknown> = {}) {
  const { client: row, secret } = await t.add_client({
    client_name: "Service",
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    scope: "reports:read reports:write",
    ...metadata,
  });
  const auth = { method: "basic" as const, client_id: row.client_id, secret: secret! };
  return { row, secret: secret!, auth, config: await rp(t, row.client_id, client.ClientSecretBasic(secret!)) };
}

async function error_of(response: Response): Promise<{ status: number; error: string }> {
  return { status: response.status, error: ((await response.json()) as { error: string }).error };
}

test("client_credentials: no id_token, no refresh_token", async () => {
  const { row, auth, config } = await service();
  const tokens = await client.clientCredentialsGrant(config);
  expect(tokens.token_type).toBe("bearer");
  expect(tokens.access_token).toMatch(ISSUED_SECRET);
  expect(tokens.expires_in).toBe(t.config.tokens.access_token_ttl);
  expect(tokens.id_token).toBeUndefined();
  expect(tokens.refresh_token).toBeUndefined();
  // No scope parameter: the registered scope (RFC 6749 §3.3 default).
  expect(tokens.scope).toBe("reports:read reports:write");
  const info = await introspect(t, tokens.access_token, auth);
  expect(info).toMatchObject({ active: true, client_id: row.client_id, scope: "reports:read reports:write", token_type: "Bearer" });
  expect(info.sub).toBeUndefined();
  // Its grant id is time-ordered (crypto/secrets.ts grant_id: index locality).
  const stored = await t.store.get_token(secret_key(tokens.access_token));
  expect(stored?.grant_id).toMatch(UUID_V7);
});

test("client_credentials: a narrower scope is granted as asked", async () => {
  const { config } = await service();
  const tokens = await client.clientCredentialsGrant(config, { scope: "reports:read" });
  expect(tokens.scope).toBe("reports:read");
});

test("client_credentials: scope outside the registered one, or openid/offline_access → invalid_scope", async () => {
  const { auth } = await service();
  for (const scope of ["reports:delete", "openid", "reports:read offline_access"]) {
    expect(await error_of(await token_request(t, { grant_type: "client_credentials", scope }, auth))).toEqual({ status: 400, error: "invalid_scope" });
  }
});

test("client_credentials: a client without a registered scope gets a token without scope", async () => {
  const { auth } = await service({ scope: undefined });
  const body = (await (await token_request(t, { grant_type: "client_credentials" }, auth)).json()) as Record<string, unknown>;
  expect(body.scope).toBeUndefined();
  expect(typeof body.access_token).toBe("string");
});

test("client_credentials token: userinfo refuses it (no user, no openid)", async () => {
  const { config } = await service();
  const tokens = await client.clientCredentialsGrant(config);
  expect((await userinfo(t, tokens.access_token)).status).toBe(403);
});

test("public client cannot use client_credentials", async () => {
  const { client: row } = await t.add_client({ token_endpoint_auth_method: "none", grant_types: ["authorization_code", "client_credentials"] });
  const response = await token_request(t, { grant_type: "client_credentials" }, { method: "none", client_id: row.client_id });
  expect(await error_of(response)).toEqual({ status: 400, error: "unauthorized_client" });
});

test("a client not registered for client_credentials → unauthorized_client", async () => {
  expect(await error_of(await token_request(t, { grant_type: "client_credentials" }))).toEqual({ status: 400, error: "unauthorized_client" });
});

test("client_credentials needs client authentication", async () => {
  const { row } = await service();
  const response = await token_request(t, { grant_type: "client_credentials" }, { method: "basic", client_id: row.client_id, secret: "wrong" });
  expect(await error_of(response)).toEqual({ status: 401, error: "invalid_client" });
});

test("a client registered through /register for client_credentials gets tokens", async () => {
  const info = await registered(t, { client_name: "Daemon", grant_types: ["client_credentials"], response_types: [], token_endpoint_auth_method: "client_secret_post" });
  const config = await rp(t, info.client_id, client.ClientSecretPost(info.client_secret!));
  const tokens = await client.clientCredentialsGrant(config);
  expect(tokens.refresh_token).toBeUndefined();
});

test("registration refuses client_credentials for a public client (RFC 6749 §4.4)", async () => {
  const response = await register(t, { client_name: "SPA", grant_types: ["client_credentials"], response_types: [], token_endpoint_auth_method: "none" });
  expect(await expect_error(response, "invalid_client_metadata")).toContain("client_credentials");
});
