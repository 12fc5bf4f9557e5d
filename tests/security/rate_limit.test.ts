/**
 * Request rate limits of /token, /revoke, /introspect and the registration endpoints
 * (src/oidc/rate_limit.ts): per claimed client_id and per client address, fixed windows in the
 * store, 429 (RFC 6585 §4) with Retry-After in the OAuth error shape (RFC 6749 §5.2). Addresses
 * come from X-Forwarded-For with trust_proxy (proxy.ts), so one process can play many clients.
 */
import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { load_config } from "../../src/app/config.ts";
import { claimed_client_id } from "../../src/oidc/rate_limit.ts";
import { start_provider } from "../helpers/provider.ts";
import { FORM, basic, in_process, type InProcess } from "./helpers.ts";

let t: InProcess | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function limited(limits: Record<string, unknown>): Promise<InProcess> {
  t = await in_process({ trust_proxy: true, rate_limits: { enabled: true, window_seconds: 60, ...limits } });
  return t;
}

/** A client_credentials request from `ip`, with Basic credentials of `client_id`. */
function token(p: InProcess, ip: string, client_id = p.client_id, secret = p.secret): Promise<Response> {
  return p.fetch("/token", { method: "POST", headers: { ...FORM, "x-forwarded-for": ip, authorization: basic(client_id, secret) }, body: "grant_type=client_credentials" });
}

async function expect_429(response: Response, window = 60): Promise<void> {
  expect(response.status).toBe(429);
  const retry = Number(response.headers.get("retry-after"));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(window);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  const body = (await response.json()) as { error: string; error_description: string };
  expect(body.error).toBe("temporarily_unavailable");
  expect(body.error_description).toContain("retry after");
}

describe("/token", () => {
  test("per client: the request over the limit gets 429 with Retry-After, whatever address it comes from", async () => {
    const p = await limited({ token_per_client: 3, token_per_ip: 1000 });
    for (let i = 0; i < 3; i++) expect((await token(p, `198.51.100.${i}`)).status).toBe(200);
    const refused = await token(p, "198.51.100.200");
    await expect_429(refused);
    // The protocol handler's headers stay on the 429: a browser app can read it, nothing caches it.
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("cache-control")).toBe("no-store");
  });

  test("per client: keyed by the CLAIMED client_id — wrong secrets count, so guessing a secret is limited", async () => {
    const p = await limited({ token_per_client: 3, token_per_ip: 1000 });
    for (let i = 0; i < 3; i++) expect((await token(p, `198.51.100.${i}`, p.client_id, `guess-${i}`)).status).toBe(401);
    await expect_429(await token(p, "198.51.100.9"));
    // Another client is not affected.
    const other = await p.fetch("/token", { method: "POST", headers: { ...FORM, "x-forwarded-for": "198.51.100.9" }, body: "grant_type=authorization_code&code=x&client_id=spa&redirect_uri=x" });
    expect(other.status).toBe(400);
  });

  test("per client: the client_id of a form body and the sub of a client assertion are the claimed client too", async () => {
    const p = await limited({ token_per_client: 2, token_per_ip: 1000 });
    const form = (ip: string) => p.fetch("/token", { method: "POST", headers: { ...FORM, "x-forwarded-for": ip }, body: "grant_type=authorization_code&code=x&redirect_uri=x&client_id=spa" });
    expect((await form("192.0.2.1")).status).toBe(400);
    expect((await form("192.0.2.2")).status).toBe(400);
    await expect_429(await form("192.0.2.3"));
    const assertion = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"spa"}').toString("base64url")}.`;
    expect(claimed_client_id(null, { client_assertion: assertion })).toBe("spa");
    const asserted = await p.fetch("/token", { method: "POST", headers: { ...FORM, "x-forwarded-for": "192.0.2.4" }, body: new URLSearchParams({ grant_type: "client_credentials", client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: assertion }).toString() });
    await expect_429(asserted);
  });

  test("per address: many client ids from one address are refused past the limit; other addresses are not", async () => {
    const p = await limited({ token_per_client: 1000, token_per_ip: 3 });
    for (let i = 0; i < 3; i++) expect((await token(p, "203.0.113.7", `client-${i}`, "x")).status).toBe(401);
    await expect_429(await token(p, "203.0.113.7", "client-9", "x"));
    expect((await token(p, "203.0.113.8")).status).toBe(200);
  });

  test("the window ends: after Retry-After seconds the client is served again", async () => {
    const p = await limited({ token_per_client: 1, token_per_ip: 1000, window_seconds: 30 });
    expect((await token(p, "192.0.2.1")).status).toBe(200);
    const refused = await token(p, "192.0.2.1");
    await expect_429(refused, 30);
    p.clock.advance(Number(refused.headers.get("retry-after")));
    expect((await token(p, "192.0.2.1")).status).toBe(200);
  });

  test("counters live in the store: a second instance sees the first one's requests", async () => {
    const p = await limited({ token_per_client: 2, token_per_ip: 1000 });
    const other = await p.instance();
    expect((await token(p, "192.0.2.1")).status).toBe(200);
    expect((await token(p, "192.0.2.1")).status).toBe(200);
    await expect_429(await other("/token", { method: "POST", headers: { ...FORM, authorization: basic(p.client_id, p.secret) }, body: "grant_type=client_credentials" }));
  });

  test("CORS preflights are not counted", async () => {
    const p = await limited({ token_per_client: 1000, token_per_ip: 1 });
    for (let i = 0; i < 5; i++) expect((await p.fetch("/token", { method: "OPTIONS", headers: { "x-forwarded-for": "192.0.2.1", origin: "https://spa.test" } })).status).toBe(204);
    expect((await token(p, "192.0.2.1")).status).toBe(200);
  });
});

describe("/revoke, /introspect and registration", () => {
  test("/revoke and /introspect have their own counters and limits", async () => {
    const p = await limited({ revoke_per_client: 2, introspect_per_client: 1 });
    const call = (path: string) => p.fetch(path, { method: "POST", headers: { ...FORM, authorization: basic(p.client_id, p.secret) }, body: "token=abc" });
    expect((await call("/revoke")).status).toBe(200);
    expect((await call("/introspect")).status).toBe(200);
    expect((await call("/revoke")).status).toBe(200);
    await expect_429(await call("/revoke"));
    await expect_429(await call("/introspect"));
    expect((await token(p, "192.0.2.1")).status).toBe(200);
  });

  test("/register: per address (no client yet); /register/:client_id: per client", async () => {
    const p = await limited({ register_per_ip: 2, register_per_client: 2 });
    const register = (ip: string) => p.fetch("/register", { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": ip }, body: JSON.stringify({ redirect_uris: ["https://rp.test/cb"] }) });
    expect((await register("192.0.2.1")).status).toBe(201);
    expect((await register("192.0.2.1")).status).toBe(201);
    await expect_429(await register("192.0.2.1"));
    expect((await register("192.0.2.2")).status).toBe(201);
    const read = (ip: string) => p.fetch("/register/app", { headers: { authorization: "Bearer wrong", "x-forwarded-for": ip } });
    expect((await read("192.0.2.3")).status).toBe(401);
    expect((await read("192.0.2.4")).status).toBe(401);
    await expect_429(await read("192.0.2.5"));
  });
});

describe("over HTTP", () => {
  test("the claimed client of a large form body is counted, and the endpoint gets the same body (read once, context.request.parsed())", async () => {
    const served = await start_provider({ config: { rate_limits: { token_per_client: 2 } } });
    try {
      const { client, secret } = await served.add_client({ token_endpoint_auth_method: "client_secret_post", grant_types: ["client_credentials"] });
      const post = (chunked: boolean) => {
        const form = new URLSearchParams({ grant_type: "client_credentials", client_id: client.client_id, client_secret: secret!, padding: "x".repeat(50_000) }).toString();
        const body = chunked ? new Blob([form]).stream() : form;
        return fetch(`${served.url}/token`, { method: "POST", headers: FORM, body });
      };
      expect((await post(false)).status).toBe(200);
      expect((await post(true)).status).toBe(200);
      await expect_429(await post(false));
    } finally {
      await served.stop();
    }
  });
});

describe("configuration", () => {
  test("IDP_RATE_LIMITS=off removes the limits (and their counter writes)", async () => {
    t = await in_process({ rate_limits: { enabled: false, token_per_client: 1 } });
    const hits = spyOn(t.store, "hit");
    for (let i = 0; i < 5; i++) expect((await token(t, "")).status).toBe(200);
    expect(hits).not.toHaveBeenCalled();
    expect(load_config({ IDP_RATE_LIMITS: "off" }).rate_limits.enabled).toBe(false);
    expect(load_config({}).rate_limits.enabled).toBe(true);
  });

  test("every limit has an environment variable; the defaults are generous", () => {
    const config = load_config({
      IDP_RATE_LIMIT_WINDOW_SECONDS: "10",
      IDP_RATE_LIMIT_TOKEN_PER_CLIENT: "1",
      IDP_RATE_LIMIT_TOKEN_PER_IP: "2",
      IDP_RATE_LIMIT_REVOKE_PER_CLIENT: "3",
      IDP_RATE_LIMIT_REVOKE_PER_IP: "4",
      IDP_RATE_LIMIT_INTROSPECT_PER_CLIENT: "5",
      IDP_RATE_LIMIT_INTROSPECT_PER_IP: "6",
      IDP_RATE_LIMIT_REGISTER_PER_CLIENT: "7",
      IDP_RATE_LIMIT_REGISTER_PER_IP: "8",
    });
    expect(config.rate_limits).toEqual({ enabled: true, window_seconds: 10, token_per_client: 1, token_per_ip: 2, revoke_per_client: 3, revoke_per_ip: 4, introspect_per_client: 5, introspect_per_ip: 6, register_per_client: 7, register_per_ip: 8 });
    expect(load_config({}).rate_limits).toEqual({ enabled: true, window_seconds: 60, token_per_client: 1200, token_per_ip: 2400, revoke_per_client: 600, revoke_per_ip: 1200, introspect_per_client: 6000, introspect_per_ip: 6000, register_per_client: 60, register_per_ip: 60 });
    expect(() => load_config({ IDP_RATE_LIMIT_TOKEN_PER_IP: "0" })).toThrow("rate_limits.token_per_ip (IDP_RATE_LIMIT_TOKEN_PER_IP)");
  });
});
