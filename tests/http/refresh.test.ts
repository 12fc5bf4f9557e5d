/**
 * The refresh_token grant (RFC 6749 §6, OIDC Core §11-12) with openid-client as the relying
 * party: when a refresh token is issued (offline_access with consent), rotation and replay
 * detection (RFC 9700 §4.14.2), client binding, scope narrowing, and the refreshed ID Token.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import * as client from "openid-client";
import { Browser } from "../helpers/browser.ts";
import { get_code, redeem, token_request, userinfo } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { introspect, rp, sign_in } from "./token_helpers.ts";
import { ISSUED_SECRET } from "../helpers/shapes.ts";
import { secret_key } from "../../src/oidc/crypto/secrets.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

const REFRESH_GRANTS = ["authorization_code", "refresh_token"];

/** A confidential client registered for refresh tokens, with its openid-client configuration. */
async function refresh_client(metadata: Record<string, unknown> = {}) {
  const { client: row, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic", grant_types: REFRESH_GRANTS, ...metadata });
  const config = await rp(t, row.client_id, client.ClientSecretBasic(secret!));
  return { row, secret: secret!, config };
}

async function expect_oauth_error(promise: Promise<unknown>, error: string): Promise<void> {
  try {
    await promise;
  } catch (thrown) {
    expect((thrown as { error?: string }).error).toBe(error);
    return;
  }
  throw new Error(`expected ${error}`);
}

describe("when a refresh token is issued", () => {
  test("offline_access with consent and the refresh_token grant: a refresh token", async () => {
    const { config } = await refresh_client();
    const { tokens, steps } = await sign_in(t, config, "openid offline_access");
    expect(steps).toEqual(["login", "consent"]);
    expect(tokens.refresh_token).toMatch(ISSUED_SECRET);
    expect(tokens.scope).toBe("openid offline_access");
    const row = await t.store.get_token(secret_key(tokens.refresh_token!));
    expect(row).toMatchObject({ kind: "refresh", client_id: config.clientMetadata().client_id, scope: "openid offline_access" });
    expect(row!.expires_at - row!.created_at).toBe(t.config.tokens.refresh_token_ttl);
  });

  test("no offline_access: no refresh token", async () => {
    const { config } = await refresh_client();
    const { tokens } = await sign_in(t, config, "openid");
    expect(tokens.refresh_token).toBeUndefined();
  });

  test("offline_access for a client without the refresh_token grant is ignored (OIDC Core §11)", async () => {
    const { client: row, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic" });
    const config = await rp(t, row.client_id, client.ClientSecretBasic(secret!));
    const { tokens } = await sign_in(t, config, "openid offline_access");
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope).toBe("openid");
  });

  test("offline_access needs consent to it: an earlier consent without it asks again", async () => {
    const { config } = await refresh_client();
    const browser = new Browser();
    expect((await sign_in(t, config, "openid", { browser })).steps).toEqual(["login", "consent"]);
    const second = await sign_in(t, config, "openid offline_access", { browser });
    expect(second.steps).toEqual(["consent"]);
    expect(second.tokens.refresh_token).toBeDefined();
    // The stored consent now covers offline_access: not asked a third time.
    const third = await sign_in(t, config, "openid offline_access", { browser });
    expect(third.steps).toEqual([]);
    expect(third.tokens.refresh_token).toBeDefined();
  });

  test("a first-party skip_consent client gets a refresh token without a consent page", async () => {
    const { config } = await refresh_client({ skip_consent: true });
    const { tokens, steps } = await sign_in(t, config, "openid offline_access");
    expect(steps).toEqual(["login"]);
    expect(tokens.refresh_token).toBeDefined();
  });
});

describe("rotation and replay", () => {
  test("refresh token rotation: each refresh returns a new refresh token and access token", async () => {
    const { config } = await refresh_client();
    const first = (await sign_in(t, config, "openid offline_access")).tokens;
    const second = await client.refreshTokenGrant(config, first.refresh_token!);
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.scope).toBe("openid offline_access");
    expect((await userinfo(t, second.access_token)).status).toBe(200);
    const third = await client.refreshTokenGrant(config, second.refresh_token!);
    expect(third.refresh_token).not.toBe(second.refresh_token);
  });

  test("refresh token rotation: old token reuse revokes the family", async () => {
    const { row, secret, config } = await refresh_client();
    const first = (await sign_in(t, config, "openid offline_access")).tokens;
    const second = await client.refreshTokenGrant(config, first.refresh_token!);
    // The spent token comes back: someone else holds it.
    await expect_oauth_error(client.refreshTokenGrant(config, first.refresh_token!), "invalid_grant");
    // RFC 9700 §4.14.2: the current refresh token is revoked too ...
    await expect_oauth_error(client.refreshTokenGrant(config, second.refresh_token!), "invalid_grant");
    // ... and every access token of the family, the first one included.
    for (const token of [first.access_token, second.access_token]) expect((await userinfo(t, token)).status).toBe(401);
    expect(await introspect(t, second.access_token, { method: "basic", client_id: row.client_id, secret })).toEqual({ active: false });
    const events = await t.store.list_audit_events({ client_id: row.client_id, type: "refresh_token_reuse" });
    expect(events.length).toBe(1);
    expect(events[0]).toMatchObject({ outcome: "failure", user_id: t.user.id });
  });

  test("two concurrent refreshes with one token: exactly one succeeds, and the replay revokes the family", async () => {
    const { row, secret } = await refresh_client();
    const auth = { method: "basic" as const, client_id: row.client_id, secret };
    const { code, pkce } = await get_code(t, { scope: "openid offline_access" }, { client_id: row.client_id });
    const body = (await (await redeem(t, code, pkce!.verifier, auth)).json()) as { refresh_token: string };
    const form = { grant_type: "refresh_token", refresh_token: body.refresh_token };
    const responses = await Promise.all(Array.from({ length: 5 }, () => token_request(t, form, auth)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400, 400, 400, 400]);
    const winner = (await responses.find((r) => r.status === 200)!.json()) as { access_token: string };
    // RFC 9700 §4.14.2 makes no exception for a racing client: the family is gone.
    expect((await userinfo(t, winner.access_token)).status).toBe(401);
  });

  test("refresh token of another client is invalid_grant, and stays usable by its own", async () => {
    const owner = await refresh_client();
    const other = await refresh_client();
    const tokens = (await sign_in(t, owner.config, "openid offline_access")).tokens;
    await expect_oauth_error(client.refreshTokenGrant(other.config, tokens.refresh_token!), "invalid_grant");
    // Not spent by the other client's attempt.
    const refreshed = await client.refreshTokenGrant(owner.config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toBeDefined();
  });

  test("a code replay revokes the refresh tokens of that code too", async () => {
    const { row, secret } = await refresh_client();
    const { code, pkce } = await get_code(t, { scope: "openid offline_access" }, { client_id: row.client_id });
    const auth = { method: "basic" as const, client_id: row.client_id, secret };
    const body = (await (await redeem(t, code, pkce!.verifier, auth)).json()) as { refresh_token: string };
    expect((await redeem(t, code, pkce!.verifier, auth)).status).toBe(400);
    const response = await token_request(t, { grant_type: "refresh_token", refresh_token: body.refresh_token }, auth);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe("invalid_grant");
  });

  test("unknown or malformed refresh token → invalid_grant; missing → invalid_request", async () => {
    const { row, secret } = await refresh_client();
    const auth = { method: "basic" as const, client_id: row.client_id, secret };
    for (const value of ["A".repeat(43), "not a token"]) {
      const response = await token_request(t, { grant_type: "refresh_token", refresh_token: value }, auth);
      expect({ status: response.status, error: ((await response.json()) as { error: string }).error }).toEqual({ status: 400, error: "invalid_grant" });
    }
    const missing = await token_request(t, { grant_type: "refresh_token" }, auth);
    expect(((await missing.json()) as { error: string }).error).toBe("invalid_request");
  });

  test("a client not registered for refresh_token → unauthorized_client", async () => {
    const response = await token_request(t, { grant_type: "refresh_token", refresh_token: "A".repeat(43) });
    expect(((await response.json()) as { error: string }).error).toBe("unauthorized_client");
  });
});

describe("scope and ID Token", () => {
  test("refresh narrows scope, broader is invalid_scope", async () => {
    const { config } = await refresh_client();
    const first = (await sign_in(t, config, "openid email offline_access")).tokens;
    await expect_oauth_error(client.refreshTokenGrant(config, first.refresh_token!, { scope: "openid email profile" }), "invalid_scope");
    // The refused request did not spend the token.
    const narrowed = await client.refreshTokenGrant(config, first.refresh_token!, { scope: "email offline_access" });
    expect(narrowed.scope).toBe("email offline_access");
    expect(narrowed.id_token).toBeUndefined();
    // RFC 6749 §6: the new refresh token keeps the original scope.
    const again = await client.refreshTokenGrant(config, narrowed.refresh_token!);
    expect(again.scope).toBe("openid email offline_access");
    expect(again.claims()!.email).toBe("alice@example.com");
  });

  test("refreshed ID token keeps auth_time and has a new iat", async () => {
    const { config } = await refresh_client();
    const { tokens, nonce } = await sign_in(t, config, "openid profile offline_access");
    const original = tokens.claims()!;
    expect(original.nonce).toBe(nonce!);
    t.clock.advance(5);
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    const claims = refreshed.claims()!;
    // OIDC Core §12.2.
    for (const name of ["iss", "sub", "aud", "auth_time", "azp", "sid"] as const) expect(claims[name]).toEqual(original[name]);
    expect(claims.iat).toBeGreaterThan(original.iat);
    expect(claims.exp).toBeGreaterThan(original.exp);
    expect(claims.nonce).toBeUndefined();
    expect(claims.name).toBe("Alice Liddell");
  });
});

test("an expired refresh token is invalid_grant", async () => {
  const short = await start_provider({ config: { tokens: { refresh_token_ttl: 60 } } });
  try {
    const { client: row, secret } = await short.add_client({ token_endpoint_auth_method: "client_secret_basic", grant_types: REFRESH_GRANTS });
    const auth = { method: "basic" as const, client_id: row.client_id, secret: secret! };
    const { code, pkce } = await get_code(short, { scope: "openid offline_access" }, { client_id: row.client_id });
    const body = (await (await redeem(short, code, pkce!.verifier, auth)).json()) as { refresh_token: string };
    short.clock.advance(61);
    const response = await token_request(short, { grant_type: "refresh_token", refresh_token: body.refresh_token }, auth);
    const error = (await response.json()) as { error: string; error_description: string };
    expect(error.error).toBe("invalid_grant");
    expect(error.error_description).toContain("expired");
  } finally {
    await short.stop();
  }
});
