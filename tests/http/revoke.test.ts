/**
 * POST /revoke (RFC 7009) with openid-client's tokenRevocation: a client revokes its own tokens,
 * a refresh token takes its family with it, and the answer is 200 whatever the token was.
 */
import { afterAll, beforeAll, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { get_code, redeem, token_request, userinfo } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { introspect, main_client, post_form, rp, sign_in } from "./token_helpers.ts";

let t: TestProvider;
let config: client.Configuration;
beforeAll(async () => {
  t = await start_provider();
  config = await rp(t, t.client.client_id, client.ClientSecretBasic(t.secret));
});
afterAll(() => t.stop());

/** A client registered for refresh tokens, signed in with offline_access. */
async function offline_tokens() {
  const { client: row, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic", grant_types: ["authorization_code", "refresh_token"] });
  const own = await rp(t, row.client_id, client.ClientSecretBasic(secret!));
  const { tokens } = await sign_in(t, own, "openid offline_access");
  return { row, config: own, auth: { method: "basic" as const, client_id: row.client_id, secret: secret! }, tokens };
}

test("revoke: unknown token still 200", async () => {
  for (const token of ["A".repeat(43), "not-even-a-token"]) {
    const response = await post_form(t, "/revoke", { token }, main_client(t));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
  }
  await client.tokenRevocation(config, "B".repeat(43));
});

test("revoke access token: userinfo then refuses it and introspection calls it inactive", async () => {
  const { tokens } = await sign_in(t, config, "openid");
  expect((await userinfo(t, tokens.access_token)).status).toBe(200);
  await client.tokenRevocation(config, tokens.access_token, { token_type_hint: "access_token" });
  expect((await userinfo(t, tokens.access_token)).status).toBe(401);
  expect(await introspect(t, tokens.access_token)).toEqual({ active: false });
  const events = await t.store.list_audit_events({ client_id: t.client.client_id, type: "tokens_revoked" });
  expect(events[0]).toMatchObject({ outcome: "success", user_id: t.user.id, details: { token_kind: "access", revoked_tokens: 1 } });
});

test("revoke refresh revokes family and its access tokens", async () => {
  const { config: own, auth, tokens } = await offline_tokens();
  const refreshed = await client.refreshTokenGrant(own, tokens.refresh_token!);
  await client.tokenRevocation(own, refreshed.refresh_token!, { token_type_hint: "refresh_token" });
  for (const access of [tokens.access_token, refreshed.access_token]) expect((await userinfo(t, access)).status).toBe(401);
  const again = await token_request(t, { grant_type: "refresh_token", refresh_token: refreshed.refresh_token! }, auth);
  expect(((await again.json()) as { error: string }).error).toBe("invalid_grant");
  expect(await introspect(t, refreshed.refresh_token!, auth)).toEqual({ active: false });
});

test("revoking an access token leaves the refresh token usable", async () => {
  const { config: own, tokens } = await offline_tokens();
  await client.tokenRevocation(own, tokens.access_token);
  const refreshed = await client.refreshTokenGrant(own, tokens.refresh_token!);
  expect((await userinfo(t, refreshed.access_token)).status).toBe(200);
});

test("revoke: a wrong token_type_hint still finds the token (RFC 7009 §2.1)", async () => {
  const { config: own, tokens } = await offline_tokens();
  await client.tokenRevocation(own, tokens.refresh_token!, { token_type_hint: "access_token" });
  expect((await userinfo(t, tokens.access_token)).status).toBe(401);
  const { tokens: second } = await sign_in(t, config, "openid");
  const response = await post_form(t, "/revoke", { token: second.access_token, token_type_hint: "refresh_token" }, main_client(t));
  expect(response.status).toBe(200);
  expect((await userinfo(t, second.access_token)).status).toBe(401);
  // An unknown hint value is ignored (§2.1: the server MAY ignore it).
  const { tokens: third } = await sign_in(t, config, "openid");
  expect((await post_form(t, "/revoke", { token: third.access_token, token_type_hint: "id_token" }, main_client(t))).status).toBe(200);
  expect((await userinfo(t, third.access_token)).status).toBe(401);
});

test("revoke: another client's token is left untouched, and the answer is still 200", async () => {
  const { tokens } = await sign_in(t, config, "openid");
  const { auth: other } = await offline_tokens();
  const response = await post_form(t, "/revoke", { token: tokens.access_token }, other);
  expect(response.status).toBe(200);
  expect((await userinfo(t, tokens.access_token)).status).toBe(200);
});

test("revoke requires client authentication", async () => {
  const { tokens } = await sign_in(t, config, "openid");
  const wrong = await post_form(t, "/revoke", { token: tokens.access_token }, { method: "basic", client_id: t.client.client_id, secret: "wrong" });
  expect(wrong.status).toBe(401);
  expect(((await wrong.json()) as { error: string }).error).toBe("invalid_client");
  expect(wrong.headers.get("www-authenticate")).toStartWith("Basic");
  const none = await post_form(t, "/revoke", { token: tokens.access_token }, null);
  expect(none.status).toBe(401);
  expect((await userinfo(t, tokens.access_token)).status).toBe(200);
});

test("revoke: token is required (invalid_request)", async () => {
  const response = await post_form(t, "/revoke", {}, main_client(t));
  expect(response.status).toBe(400);
  expect(((await response.json()) as { error: string }).error).toBe("invalid_request");
});

test("a public client revokes its own token with its client_id; CORS lets a browser app do it", async () => {
  const { client: spa } = await t.add_client({ token_endpoint_auth_method: "none" });
  const { code, pkce } = await get_code(t, {}, { client_id: spa.client_id });
  const auth = { method: "none" as const, client_id: spa.client_id };
  const { access_token } = (await (await redeem(t, code, pkce!.verifier, auth)).json()) as { access_token: string };
  const preflight = await fetch(`${t.url}/revoke`, { method: "OPTIONS", headers: { origin: "https://spa.example.com", "access-control-request-method": "POST" } });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get("access-control-allow-methods")).toBe("POST");
  const response = await post_form(t, "/revoke", { token: access_token }, auth);
  expect(response.status).toBe(200);
  expect(response.headers.get("access-control-allow-origin")).toBe("*");
  expect((await userinfo(t, access_token)).status).toBe(401);
});
