/**
 * A user whose access ends for a security reason keeps nothing: disabling an account (the admin
 * API) and the admin API's "end sessions" revoke every token of the user, also the offline_access
 * refresh tokens that outlived their browser session (a sign-out keeps those, OIDC Core §11); and
 * the refresh, code and device grants, /userinfo and introspection refuse a user who is not
 * active, whatever tokens or codes are still about (RFC 6749 §5.2 invalid_grant, RFC 6750 §3.1
 * invalid_token, RFC 7662 §2.2 active false).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { Browser, authorize } from "../helpers/browser.ts";
import { authorization_url, pkce, redeem, userinfo } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import type { UserRow } from "../../src/store/types.ts";
import { end_session_url, sign_in, type Rp } from "./logout_helpers.ts";
import { introspect, post_form, type Tokens } from "./token_helpers.ts";

const API = "/admin/api/v1";

let t: TestProvider;
let rp: Rp;
let rp_auth: { method: "basic"; client_id: string; secret: string };
let admin_token: string;

beforeAll(async () => {
  t = await start_provider();
  const { client: row, secret } = await t.add_client({
    client_name: "Offline App",
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["authorization_code", "refresh_token"],
  });
  rp = {
    client_id: row.client_id,
    config: await client.discovery(new URL(t.issuer), row.client_id, undefined, client.ClientSecretBasic(secret!), { execute: [client.allowInsecureRequests] }),
  };
  rp_auth = { method: "basic", client_id: row.client_id, secret: secret! };
  const ops = await t.add_client({
    client_name: "ops",
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["client_credentials"],
    response_types: [],
    redirect_uris: [],
    scope: "admin",
    admin: true,
  });
  const issued = await post_form(t, "/token", { grant_type: "client_credentials", scope: "admin" }, { method: "basic", client_id: ops.client.client_id, secret: ops.secret! });
  admin_token = ((await issued.json()) as { access_token: string }).access_token;
});
afterAll(() => t.stop());

let next_user = 1;
function new_user(): Promise<UserRow> {
  return t.add_user({ username: `leaver${next_user++}` });
}

function admin(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const all: Record<string, string> = { authorization: `Bearer ${admin_token}`, accept: "application/json", ...headers };
  if (body !== undefined) all["content-type"] = "application/json";
  return fetch(`${t.url}${API}${path}`, { method, headers: all, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** PATCH status disabled through the admin API, with the user's ETag. */
async function disable_through_api(user: UserRow): Promise<void> {
  const etag = (await admin("GET", `/users/${user.id}`)).headers.get("etag")!;
  const res = await admin("PATCH", `/users/${user.id}`, { status: "disabled" }, { "if-match": etag });
  expect(res.status).toBe(200);
}

function refresh(refresh_token: string): Promise<Response> {
  return post_form(t, "/token", { grant_type: "refresh_token", refresh_token }, rp_auth);
}

/** Signs `user` in with offline_access, signs out, and refreshes once after the sign-out (the offline refresh token still works then). */
async function offline_after_sign_out(user: UserRow): Promise<{ access_token: string; refresh_token: string }> {
  const signed_in = await sign_in(t, rp, undefined, user.username, "openid offline_access");
  expect((await signed_in.browser.get(end_session_url(rp, { id_token_hint: signed_in.id_token }))).status).toBe(200);
  const refreshed = await refresh(signed_in.refresh_token!);
  expect(refreshed.status).toBe(200);
  const tokens = (await refreshed.json()) as Tokens;
  expect((await userinfo(t, tokens.access_token)).status).toBe(200);
  return { access_token: tokens.access_token, refresh_token: tokens.refresh_token! };
}

/** The tokens no longer work: refresh invalid_grant, /userinfo invalid_token, introspection inactive. */
async function expect_dead(tokens: { access_token: string; refresh_token: string }): Promise<void> {
  const refreshed = await refresh(tokens.refresh_token);
  expect(refreshed.status).toBe(400);
  expect(((await refreshed.json()) as { error: string }).error).toBe("invalid_grant");
  const info = await userinfo(t, tokens.access_token);
  expect(info.status).toBe(401);
  expect(info.headers.get("www-authenticate")).toContain('error="invalid_token"');
  expect(await introspect(t, tokens.access_token, rp_auth)).toEqual({ active: false });
  expect(await introspect(t, tokens.refresh_token, rp_auth)).toEqual({ active: false });
}

describe("a user disabled after signing out", () => {
  test("loses the offline refresh token and its access tokens: refresh invalid_grant, /userinfo invalid_token, introspection inactive", async () => {
    const user = await new_user();
    const tokens = await offline_after_sign_out(user);
    await disable_through_api(user);
    await expect_dead(tokens);
    // Revoked in the store, not only refused: enabling the account again does not bring them back.
    const etag = (await admin("GET", `/users/${user.id}`)).headers.get("etag")!;
    expect((await admin("PATCH", `/users/${user.id}`, { status: "active" }, { "if-match": etag })).status).toBe(200);
    await expect_dead(tokens);
  });

  test("a code issued before the account was disabled cannot be redeemed", async () => {
    const user = await new_user();
    const challenge = pkce();
    const { callback } = await authorize(new Browser(), authorization_url(t, { code_challenge: challenge.challenge, code_challenge_method: "S256" }), {
      username: user.username,
      password: t.password,
      callback_prefix: REDIRECT_URI,
    });
    await disable_through_api(user);
    const res = await redeem(t, callback.searchParams.get("code")!, challenge.verifier);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_grant");
  });
});

describe("the admin API's end sessions", () => {
  test("revokes the offline refresh tokens of sessions that already ended", async () => {
    const user = await new_user();
    const tokens = await offline_after_sign_out(user);
    const res = await admin("DELETE", `/users/${user.id}/sessions`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { tokens_revoked: number }).tokens_revoked).toBeGreaterThanOrEqual(2);
    await expect_dead(tokens);
  });
});

describe("a user who is not active, whatever tokens are still stored", () => {
  test("refresh, /userinfo and introspection refuse them", async () => {
    const user = await new_user();
    const tokens = await offline_after_sign_out(user);
    // Changed in the database behind the rules' back: nothing was revoked.
    await t.store.update_user(user.id, { status: "disabled" });
    const refreshed = await refresh(tokens.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe("invalid_grant");
    const info = await userinfo(t, tokens.access_token);
    expect(info.status).toBe(401);
    expect(info.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await introspect(t, tokens.access_token, rp_auth)).toEqual({ active: false });
  });
});
