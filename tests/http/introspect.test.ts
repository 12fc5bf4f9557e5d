/**
 * POST /introspect (RFC 7662) with openid-client's tokenIntrospection: authenticated clients
 * only, their own tokens (a resource server flagged by the operator: any access token), and
 * `{active: false}` for everything else.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { get_code, redeem } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { introspect, main_client, post_form, rp, sign_in } from "./token_helpers.ts";

let t: TestProvider;
let config: client.Configuration;
beforeAll(async () => {
  t = await start_provider();
  config = await rp(t, t.client.client_id, client.ClientSecretBasic(t.secret));
});
afterAll(() => t.stop());

test("introspect: active fields of an access token", async () => {
  const { tokens } = await sign_in(t, config, "openid email");
  const before = t.clock.now();
  const info = await client.tokenIntrospection(config, tokens.access_token);
  expect(Object.keys(info).sort()).toEqual(["active", "auth_time", "client_id", "exp", "iat", "iss", "scope", "sub", "token_type", "username"]);
  expect(info).toMatchObject({ active: true, scope: "openid email", client_id: t.client.client_id, token_type: "Bearer", sub: t.user.id, username: "alice", iss: t.issuer });
  expect(info.exp! - info.iat!).toBe(t.config.tokens.access_token_ttl);
  expect(Math.abs(info.iat! - before)).toBeLessThanOrEqual(2);
  expect(typeof info.auth_time).toBe("number");
});

test("introspect: a refresh token is active with token_type refresh_token", async () => {
  const { client: row, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_post", grant_types: ["authorization_code", "refresh_token"] });
  const own = await rp(t, row.client_id, client.ClientSecretPost(secret!));
  const { tokens } = await sign_in(t, own, "openid offline_access");
  const info = await client.tokenIntrospection(own, tokens.refresh_token!, { token_type_hint: "refresh_token" });
  expect(info).toMatchObject({ active: true, token_type: "refresh_token", scope: "openid offline_access", client_id: row.client_id, sub: t.user.id });
  expect(info.exp! - info.iat!).toBe(t.config.tokens.refresh_token_ttl);
  // Spent by a refresh: no longer active.
  await client.refreshTokenGrant(own, tokens.refresh_token!);
  expect(await client.tokenIntrospection(own, tokens.refresh_token!)).toEqual({ active: false });
});

test("introspect: inactive for revoked, expired, unknown and foreign tokens", async () => {
  const revoked = (await sign_in(t, config, "openid")).tokens.access_token;
  await client.tokenRevocation(config, revoked);
  expect(await introspect(t, revoked)).toEqual({ active: false });
  expect(await introspect(t, "A".repeat(43))).toEqual({ active: false });
  expect(await introspect(t, "not a token")).toEqual({ active: false });
  // Another client's token: inactive for us, whatever it is.
  const { client: other, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic" });
  const foreign = (await sign_in(t, await rp(t, other.client_id, client.ClientSecretBasic(secret!)), "openid")).tokens.access_token;
  expect(await introspect(t, foreign)).toEqual({ active: false });
  expect((await introspect(t, foreign, { method: "basic", client_id: other.client_id, secret: secret! })).active).toBe(true);
  // Expired.
  const expiring = (await sign_in(t, config, "openid")).tokens.access_token;
  t.clock.advance(t.config.tokens.access_token_ttl + 1);
  expect(await introspect(t, expiring)).toEqual({ active: false });
});

test("introspect: a code replay's revocation shows at once", async () => {
  const { code, pkce } = await get_code(t);
  const { access_token } = (await (await redeem(t, code, pkce!.verifier)).json()) as { access_token: string };
  expect((await introspect(t, access_token)).active).toBe(true);
  expect((await redeem(t, code, pkce!.verifier)).status).toBe(400);
  expect(await introspect(t, access_token)).toEqual({ active: false });
});

test("introspect requires client auth", async () => {
  const { tokens } = await sign_in(t, config, "openid");
  const anonymous = await post_form(t, "/introspect", { token: tokens.access_token }, null);
  expect(anonymous.status).toBe(401);
  expect(((await anonymous.json()) as { error: string }).error).toBe("invalid_client");
  const wrong = await post_form(t, "/introspect", { token: tokens.access_token }, { method: "basic", client_id: t.client.client_id, secret: "wrong" });
  expect(wrong.status).toBe(401);
  // A public client has nothing to authenticate with: refused even for its own tokens.
  const { client: spa } = await t.add_client({ token_endpoint_auth_method: "none" });
  const { code, pkce } = await get_code(t, {}, { client_id: spa.client_id });
  const auth = { method: "none" as const, client_id: spa.client_id };
  const { access_token } = (await (await redeem(t, code, pkce!.verifier, auth)).json()) as { access_token: string };
  const pub = await post_form(t, "/introspect", { token: access_token }, auth);
  expect(pub.status).toBe(401);
  expect(((await pub.json()) as { error: string }).error).toBe("invalid_client");
});

test("introspect: no-store, and token is required", async () => {
  const response = await post_form(t, "/introspect", { token: "A".repeat(43) }, main_client(t));
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(response.headers.get("content-type")).toStartWith("application/json");
  const missing = await post_form(t, "/introspect", {}, main_client(t));
  expect(missing.status).toBe(400);
  expect(((await missing.json()) as { error: string }).error).toBe("invalid_request");
});

test("introspect: a resource server may check other clients' access tokens, never their refresh tokens", async () => {
  const { client: api, secret } = await t.add_client({
    client_name: "API",
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["client_credentials"],
    resource_server: true,
  });
  const api_auth = { method: "basic" as const, client_id: api.client_id, secret: secret! };
  const { tokens } = await sign_in(t, config, "openid profile");
  expect(await introspect(t, tokens.access_token, api_auth)).toMatchObject({ active: true, client_id: t.client.client_id, sub: t.user.id, scope: "openid profile" });
  const { client: row, secret: own_secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic", grant_types: ["authorization_code", "refresh_token"] });
  const { tokens: offline } = await sign_in(t, await rp(t, row.client_id, client.ClientSecretBasic(own_secret!)), "openid offline_access");
  expect(await introspect(t, offline.refresh_token!, api_auth)).toEqual({ active: false });
});
