/**
 * POST /token, authorization_code grant: client authentication, code binding and single use,
 * PKCE (RFC 7636 §4.6, RFC 9700 §2.1.1) and the error shapes of RFC 6749 §5.2.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { secret_key } from "../../src/oidc/crypto/secrets.ts";
import { authorization_url, basic, get_code, redeem, token_request, userinfo } from "../helpers/flow.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { ISSUED_SECRET } from "../helpers/shapes.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

async function expect_error(response: Response, status: number, error: string): Promise<{ error: string; error_description: string }> {
  const body = (await response.json()) as { error: string; error_description: string };
  expect({ status: response.status, error: body.error }).toEqual({ status, error });
  expect(typeof body.error_description).toBe("string");
  expect(response.headers.get("cache-control")).toBe("no-store");
  return body;
}

describe("success", () => {
  test("200 with access_token, Bearer, expires_in, id_token, scope and no-store", async () => {
    const { code, pkce } = await get_code(t, { scope: "openid profile" });
    const response = await redeem(t, code, pkce!.verifier);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("pragma")).toBe("no-cache");
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "id_token", "scope", "token_type"]);
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(t.config.tokens.access_token_ttl);
    expect(body.scope).toBe("openid profile");
    expect(body.access_token).toMatch(ISSUED_SECRET);
    // The authorization's grant id, on the token as grant_id and family_id, is a time-ordered
    // UUIDv7 (crypto/secrets.ts grant_id: the indexes on them get appends, not random inserts).
    const stored = await t.store.get_token(secret_key(body.access_token as string));
    expect(stored?.grant_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stored?.family_id).toBe(stored!.grant_id);
  });

  test("a confidential client may skip PKCE; the code still works", async () => {
    const { code } = await get_code(t, {}, { pkce: null });
    expect((await redeem(t, code, null)).status).toBe(200);
  });

  test("Basic credentials are form-urlencoded before base64 (RFC 6749 §2.3.1)", async () => {
    const { client, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic" }, { client_id: "app:with space" });
    const { code, pkce } = await get_code(t, {}, { client_id: client.client_id });
    const response = await token_request(t, { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, code_verifier: pkce!.verifier }, null);
    expect(response.status).toBe(401);
    const ok = await fetch(`${t.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(client.client_id, secret!) },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, code_verifier: pkce!.verifier }).toString(),
    });
    expect(ok.status).toBe(200);
  });
});

describe("invalid_grant", () => {
  test("redirect URI mismatch at /token → invalid_grant", async () => {
    const { code, pkce } = await get_code(t);
    await expect_error(await redeem(t, code, pkce!.verifier, undefined, { redirect_uri: "https://rp.example.com/other" }), 400, "invalid_grant");
  });

  test("missing redirect_uri at /token → invalid_grant", async () => {
    const { code, pkce } = await get_code(t);
    await expect_error(await token_request(t, { grant_type: "authorization_code", code, code_verifier: pkce!.verifier }), 400, "invalid_grant");
  });

  test("code reuse → invalid_grant AND the first access token now fails at userinfo", async () => {
    const { code, pkce } = await get_code(t);
    const first = (await (await redeem(t, code, pkce!.verifier)).json()) as { access_token: string };
    expect((await userinfo(t, first.access_token)).status).toBe(200);
    await expect_error(await redeem(t, code, pkce!.verifier), 400, "invalid_grant");
    const after = await userinfo(t, first.access_token);
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  test("wrong code_verifier → invalid_grant", async () => {
    const { code } = await get_code(t);
    await expect_error(await redeem(t, code, "x".repeat(43)), 400, "invalid_grant");
  });

  test("missing code_verifier → invalid_grant", async () => {
    const { code } = await get_code(t);
    await expect_error(await redeem(t, code, null), 400, "invalid_grant");
  });

  test("code_verifier for a code requested without code_challenge (PKCE downgrade) → invalid_grant", async () => {
    const { code } = await get_code(t, {}, { pkce: null });
    const body = await expect_error(await redeem(t, code, "y".repeat(43)), 400, "invalid_grant");
    expect(body.error_description).toContain("code_challenge");
  });

  test("expired code (injected clock) → invalid_grant", async () => {
    const { code, pkce } = await get_code(t);
    t.clock.advance(t.config.tokens.code_ttl + 1);
    const body = await expect_error(await redeem(t, code, pkce!.verifier), 400, "invalid_grant");
    expect(body.error_description).toContain("expired");
  });

  test("unknown code → invalid_grant", async () => {
    await expect_error(await redeem(t, "A".repeat(43), "v".repeat(43)), 400, "invalid_grant");
  });

  test("a code issued to another client → invalid_grant", async () => {
    const { client, secret } = await t.add_client({ token_endpoint_auth_method: "client_secret_basic" });
    const { code, pkce } = await get_code(t);
    await expect_error(await redeem(t, code, pkce!.verifier, { method: "basic", client_id: client.client_id, secret: secret! }), 400, "invalid_grant");
  });
});

describe("client authentication", () => {
  test("wrong client secret with Basic → 401 + WWW-Authenticate Basic", async () => {
    const { code, pkce } = await get_code(t);
    const response = await redeem(t, code, pkce!.verifier, { method: "basic", client_id: t.client.client_id, secret: "wrong" });
    await expect_error(response, 401, "invalid_client");
    expect(response.headers.get("www-authenticate")).toStartWith("Basic realm=");
  });

  test("wrong secret with post → 401 invalid_client", async () => {
    const { client } = await t.add_client({ token_endpoint_auth_method: "client_secret_post" });
    const { code, pkce } = await get_code(t, {}, { client_id: client.client_id });
    const response = await redeem(t, code, pkce!.verifier, { method: "post", client_id: client.client_id, secret: "wrong" });
    await expect_error(response, 401, "invalid_client");
    expect(response.headers.get("www-authenticate")).toBeNull();
  });

  test("a method other than the registered one → invalid_client", async () => {
    const { code, pkce } = await get_code(t);
    await expect_error(await redeem(t, code, pkce!.verifier, { method: "post", client_id: t.client.client_id, secret: t.secret }), 401, "invalid_client");
  });

  test("unknown client → invalid_client", async () => {
    await expect_error(await redeem(t, "c".repeat(43), null, { method: "basic", client_id: "nobody", secret: "x" }), 401, "invalid_client");
  });

  test("no client authentication → invalid_client", async () => {
    await expect_error(await redeem(t, "c".repeat(43), null, null as never), 401, "invalid_client");
  });

  test("Basic and client_secret in the body together → invalid_request", async () => {
    const response = await fetch(`${t.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(t.client.client_id, t.secret) },
      body: new URLSearchParams({ grant_type: "authorization_code", code: "x", client_secret: t.secret }).toString(),
    });
    await expect_error(response, 400, "invalid_request");
  });

  test("public client: PKCE is what proves possession; no verifier → invalid_grant", async () => {
    const { client } = await t.add_client({ token_endpoint_auth_method: "none" });
    const { code, pkce } = await get_code(t, {}, { client_id: client.client_id });
    await expect_error(await redeem(t, code, null, { method: "none", client_id: client.client_id }), 400, "invalid_grant");
    const again = await get_code(t, {}, { client_id: client.client_id });
    expect((await redeem(t, again.code, again.pkce!.verifier, { method: "none", client_id: client.client_id })).status).toBe(200);
    expect(pkce).not.toBeNull();
  });
});

describe("request checks", () => {
  test("unsupported grant_type → unsupported_grant_type", async () => {
    await expect_error(await token_request(t, { grant_type: "password", username: "alice", password: "x" }), 400, "unsupported_grant_type");
  });

  test("grant type the client is not registered for → unauthorized_client", async () => {
    const { client, secret } = await t.add_client({ grant_types: ["client_credentials"] });
    await expect_error(
      await token_request(t, { grant_type: "authorization_code", code: "x" }, { method: "basic", client_id: client.client_id, secret: secret! }),
      400,
      "unauthorized_client",
    );
  });

  test("missing grant_type → invalid_request", async () => {
    await expect_error(await token_request(t, { code: "x" }), 400, "invalid_request");
  });

  test("a repeated parameter → invalid_request (never Fw's 422)", async () => {
    const response = await fetch(`${t.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(t.client.client_id, t.secret) },
      body: "grant_type=authorization_code&code=a&code=b",
    });
    const body = await expect_error(response, 400, "invalid_request");
    expect(body.error_description).toContain("code was sent more than once");
  });

  test("a JSON body → invalid_request (RFC 6749 §3.2: form-encoded)", async () => {
    const response = await fetch(`${t.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: basic(t.client.client_id, t.secret) },
      body: JSON.stringify({ grant_type: "authorization_code", code: "x" }),
    });
    await expect_error(response, 400, "invalid_request");
  });

  test("GET /token → 405 with Allow: OPTIONS, POST", async () => {
    const response = await fetch(`${t.url}/token`);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("OPTIONS, POST");
    expect(authorization_url(t)).toContain("/authorize");
  });
});
