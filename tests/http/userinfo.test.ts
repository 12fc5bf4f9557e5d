/** /userinfo (OIDC Core §5.3) and its Bearer errors (RFC 6750 §3). */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { get_code, redeem } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
let token: string;
beforeAll(async () => {
  t = await start_provider();
  const { code, pkce } = await get_code(t, { scope: "openid email" });
  token = ((await (await redeem(t, code, pkce!.verifier)).json()) as { access_token: string }).access_token;
});
afterAll(() => t.stop());

const url = () => `${t.url}/userinfo`;

describe("success", () => {
  test("GET with Authorization: Bearer", async () => {
    const response = await fetch(url(), { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ sub: t.user.id, email: "alice@example.com", email_verified: true });
  });

  test("POST with the token in a form body (RFC 6750 §2.2)", async () => {
    const response = await fetch(url(), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `access_token=${token}` });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { sub: string }).sub).toBe(t.user.id);
  });

  test("POST with the header", async () => {
    const response = await fetch(url(), { method: "POST", headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
  });
});

describe("errors", () => {
  test('bad bearer token → 401 + WWW-Authenticate Bearer error="invalid_token"', async () => {
    const response = await fetch(url(), { headers: { authorization: `Bearer ${"x".repeat(43)}` } });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate")!;
    expect(challenge).toStartWith("Bearer ");
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain("error_description=");
    expect(((await response.json()) as { error: string }).error).toBe("invalid_token");
  });

  test("no token → 401 with a bare Bearer challenge (no error code, RFC 6750 §3.1)", async () => {
    const response = await fetch(url());
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate")!;
    expect(challenge).toStartWith("Bearer");
    expect(challenge).not.toContain("error=");
  });

  test("token in header and body → 400 invalid_request", async () => {
    const response = await fetch(url(), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
      body: `access_token=${token}`,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_request"');
  });

  test("malformed Bearer credentials → 400 invalid_request", async () => {
    const response = await fetch(url(), { headers: { authorization: "Bearer a b c" } });
    expect(response.status).toBe(400);
  });

  test("a token in the query string is not accepted (RFC 6750 §2.3 not supported)", async () => {
    const response = await fetch(`${url()}?access_token=${token}`);
    expect(response.status).toBe(401);
  });

  test("expired token → 401 invalid_token", async () => {
    const { code, pkce } = await get_code(t);
    const fresh = ((await (await redeem(t, code, pkce!.verifier)).json()) as { access_token: string }).access_token;
    t.clock.advance(t.config.tokens.access_token_ttl + 1);
    const response = await fetch(url(), { headers: { authorization: `Bearer ${fresh}` } });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain("expired");
  });

  test("a revoked token fails at once", async () => {
    t.clock.advance(-(t.config.tokens.access_token_ttl + 1));
    const { code, pkce } = await get_code(t);
    const fresh = ((await (await redeem(t, code, pkce!.verifier)).json()) as { access_token: string }).access_token;
    const { secret_key } = await import("../../src/oidc/crypto/secrets.ts");
    await t.store.revoke_token(secret_key(fresh));
    expect((await fetch(url(), { headers: { authorization: `Bearer ${fresh}` } })).status).toBe(401);
  });
});

describe("CORS for browser-based clients", () => {
  test("preflight for userinfo with Authorization, and readable answers (errors included)", async () => {
    const preflight = await fetch(url(), {
      method: "OPTIONS",
      headers: { origin: "https://spa.example.com", "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization");
    const denied = await fetch(url(), { headers: { origin: "https://spa.example.com" } });
    expect(denied.headers.get("access-control-allow-origin")).toBe("*");
    expect(denied.headers.get("access-control-expose-headers")).toBe("WWW-Authenticate, DPoP-Nonce");
    const token_preflight = await fetch(`${t.url}/token`, { method: "OPTIONS", headers: { origin: "https://spa.example.com", "access-control-request-method": "POST" } });
    expect(token_preflight.status).toBe(204);
    expect(token_preflight.headers.get("access-control-allow-methods")).toBe("POST");
  });
});
