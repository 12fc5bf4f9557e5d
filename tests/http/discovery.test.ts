/** Discovery, JWKS, health and static files: precomputed, cached, advertising only what works. */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider();
});
afterAll(() => t.stop());

type Metadata = Record<string, unknown> & { issuer: string; jwks_uri: string };

async function metadata(): Promise<Metadata> {
  return (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Metadata;
}

describe("discovery", () => {
  test("issuer equals the configured issuer and every URL derives from it", async () => {
    const meta = await metadata();
    expect(meta.issuer).toBe(t.config.issuer);
    for (const [key, value] of Object.entries(meta)) {
      if (key.endsWith("_endpoint") || key.endsWith("_uri")) expect(String(value)).toStartWith(`${t.issuer}/`);
    }
  });

  test("every advertised endpoint answers (not 404)", async () => {
    const meta = await metadata();
    const urls = Object.entries(meta).filter(([key]) => key.endsWith("_endpoint") || key === "jwks_uri");
    expect(urls.map(([key]) => key)).toEqual(expect.arrayContaining(["authorization_endpoint", "jwks_uri", "token_endpoint", "userinfo_endpoint"]));
    for (const [key, url] of urls) {
      const response = await fetch(String(url), { redirect: "manual", headers: { accept: "text/html" } });
      expect({ key, status: response.status }).not.toEqual({ key, status: 404 });
      expect(response.status).toBeLessThan(500);
    }
  });

  test("advertises only what works", async () => {
    const meta = await metadata();
    expect(meta.response_types_supported).toEqual(["code"]);
    // JARM §2.3 besides query and form_post.
    expect(meta.response_modes_supported).toEqual(["query", "form_post", "jwt", "query.jwt", "fragment.jwt", "form_post.jwt"]);
    // RFC 8693 token exchange: usable only by clients with an operator-set policy (grants/token_exchange.ts).
    expect(meta.grant_types_supported).toEqual([
      "authorization_code",
      "refresh_token",
      "client_credentials",
      "urn:ietf:params:oauth:grant-type:device_code",
      "urn:ietf:params:oauth:grant-type:token-exchange",
    ]);
    // RFC 8628 §4.
    expect(meta.device_authorization_endpoint).toBe(`${t.issuer}/device_authorization`);
    expect(meta.code_challenge_methods_supported).toEqual(["S256"]);
    expect(meta.token_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]);
    expect(meta.token_endpoint_auth_signing_alg_values_supported).toEqual(["RS256", "PS256", "ES256", "EdDSA"]);
    // RFC 8414 §2: /revoke and /introspect authenticate clients as /token does (oidc/clients/authentication.ts).
    expect(meta.revocation_endpoint_auth_signing_alg_values_supported).toEqual(meta.token_endpoint_auth_signing_alg_values_supported);
    expect(meta.introspection_endpoint_auth_signing_alg_values_supported).toEqual(meta.token_endpoint_auth_signing_alg_values_supported);
    expect(meta.revocation_endpoint).toBe(`${t.issuer}/revoke`);
    expect(meta.revocation_endpoint_auth_methods_supported).toEqual(meta.token_endpoint_auth_methods_supported);
    expect(meta.introspection_endpoint).toBe(`${t.issuer}/introspect`);
    expect(meta.introspection_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "private_key_jwt"]);
    expect((meta.id_token_signing_alg_values_supported as string[])[0]).toBe("RS256");
    expect(meta.id_token_signing_alg_values_supported).toEqual(t.provider.keys.signing_algs().includes("ES256") ? ["RS256", "ES256"] : ["RS256"]);
    expect(meta.authorization_response_iss_parameter_supported).toBe(true);
    expect(meta.request_parameter_supported).toBe(true);
    expect(meta.request_object_signing_alg_values_supported).toEqual(["none", "RS256", "PS256", "ES256", "EdDSA"]);
    // OIDC Core §6.2: only URLs the client registered in request_uris.
    expect(meta.request_uri_parameter_supported).toBe(true);
    expect(meta.require_request_uri_registration).toBe(true);
    expect(meta.claims_parameter_supported).toBe(true);
    expect(meta.prompt_values_supported).toEqual(["none", "login", "consent"]);
    expect(meta.scopes_supported).toEqual(["openid", "profile", "email", "address", "phone", "offline_access", "groups"]);
  });

  test("ETag, 304 on If-None-Match, public caching, CORS", async () => {
    const first = await fetch(`${t.url}/.well-known/openid-configuration`);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get("cache-control")).toMatch(/^public, max-age=\d+$/);
    expect(first.headers.get("access-control-allow-origin")).toBe("*");
    expect(first.headers.get("content-type")).toStartWith("application/json");
    const again = await fetch(`${t.url}/.well-known/openid-configuration`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    const weak = await fetch(`${t.url}/.well-known/openid-configuration`, { headers: { "if-none-match": `"other", W/${etag}` } });
    expect(weak.status).toBe(304);
    const stale = await fetch(`${t.url}/.well-known/openid-configuration`, { headers: { "if-none-match": '"stale"' } });
    expect(stale.status).toBe(200);
  });
});

describe("JWKS", () => {
  test("public members only: no d, p, q, dp, dq, qi, k", async () => {
    const response = await fetch(`${t.url}/.well-known/jwks.json`);
    expect(response.status).toBe(200);
    const { keys } = (await response.json()) as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      for (const secret of ["d", "p", "q", "dp", "dq", "qi", "k", "oth"]) expect(key[secret]).toBeUndefined();
      expect(typeof key.kid).toBe("string");
      expect(key.use).toBe("sig");
    }
    expect(keys.some((k) => k.alg === "RS256" && k.kty === "RSA")).toBe(true);
  });

  test("ETag/304 and a shorter cache than discovery (keys rotate)", async () => {
    const first = await fetch(`${t.url}/.well-known/jwks.json`);
    const etag = first.headers.get("etag")!;
    expect(first.headers.get("cache-control")).toBe("public, max-age=300");
    expect(first.headers.get("access-control-allow-origin")).toBe("*");
    const again = await fetch(`${t.url}/.well-known/jwks.json`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
  });
});

describe("health", () => {
  test("/healthz → ok", async () => {
    const response = await fetch(`${t.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  test("/readyz → ready with database and keys", async () => {
    const response = await fetch(`${t.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ready", database: "ok", keys: "ok" });
  });
});

describe("static files", () => {
  test("the stylesheet with its content type, caching and ETag", async () => {
    const response = await fetch(`${t.url}/static/style.css`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(response.headers.get("cache-control")).toStartWith("public, max-age=");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const again = await fetch(`${t.url}/static/style.css`, { headers: { "if-none-match": response.headers.get("etag")! } });
    expect(again.status).toBe(304);
  });

  test("no traversal and no unknown files", async () => {
    for (const path of ["/static/../package.json", "/static/%2e%2e/package.json", "/static/..%2fpackage.json", "/static/nope.css", "/static/"]) {
      const response = await fetch(`${t.url}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
  });
});

describe("readiness when the database is down", () => {
  test("/readyz → 503 naming the database", async () => {
    const ping = t.store.ping.bind(t.store);
    t.store.ping = async () => {
      throw new Error("connection refused");
    };
    try {
      const response = await fetch(`${t.url}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ status: "unavailable", database: "unavailable", keys: "ok" });
    } finally {
      t.store.ping = ping;
    }
  });
});
