/**
 * Rate limits of /token, /revoke, /introspect and the registration endpoints (src/oidc/limits/endpoints.ts,
 * src/oidc/limits/client_auth.ts). With the defaults they target abuse: failed client
 * authentications (RFC 6749 §2.3, invalid_client of §5.2) per (client_id, address), per address and
 * per client_id; requests without client credentials per address; registrations per address.
 * Authenticated traffic has no quota unless the operator sets one (`token_per_client` and the
 * others, tested below with quotas set). Refusals: 429 (RFC 6585 §4) with Retry-After in the OAuth
 * error shape (RFC 6749 §5.2). Addresses come from X-Forwarded-For with trust_proxy (proxy.ts), so
 * one process can play many clients.
 */
import { afterEach, describe, expect, spyOn, test } from "../helpers/test_api.ts";
import { load_config } from "../../src/app/config.ts";
import { claimed_client_id } from "../../src/oidc/limits/endpoints.ts";
import { start_provider } from "../helpers/provider.ts";
import { FORM, basic, in_process, type InProcess } from "./helpers.ts";

let t: InProcess | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The provider with rate limits on: the defaults, but for `limits`. */
async function limited(limits: Record<string, unknown>): Promise<InProcess> {
  t = await in_process({ trust_proxy: true, rate_limits: { enabled: true, window_seconds: 60, ...limits } });
  return t;
}

/** A client_credentials request from `ip`, with Basic credentials of `client_id`. */
function token(p: InProcess, ip: string, client_id = p.client_id, secret = p.secret): Promise<Response> {
  return p.fetch("/token", { method: "POST", headers: { ...FORM, "x-forwarded-for": ip, authorization: basic(client_id, secret) }, body: "grant_type=client_credentials" });
}

/** A public client's (unauthenticated) code exchange from `ip`: a wrong code, so 400 when let through. */
function unauthenticated(p: InProcess, ip: string): Promise<Response> {
  return p.fetch("/token", {
    method: "POST",
    headers: { ...FORM, "x-forwarded-for": ip },
    body: `grant_type=authorization_code&code=x&redirect_uri=x&client_id=${p.public_client_id}`,
  });
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

function statuses(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

describe("defaults: a busy client is a customer", () => {
  test("200 client_credentials requests a second for 5 s from one client, over HTTP: every one 200, none 429", async () => {
    const served = await start_provider();
    try {
      const { client, secret } = await served.add_client({ token_endpoint_auth_method: "client_secret_basic", grant_types: ["client_credentials"] });
      const authorization = basic(client.client_id, secret!);
      const send = () =>
        fetch(`${served.url}/token`, { method: "POST", headers: { ...FORM, authorization }, body: "grant_type=client_credentials" }).then(async (r) => {
          await r.arrayBuffer();
          return r;
        });
      // 20 requests every 100 ms for 5 s, without waiting for the answers: 1000 requests, plus a
      // last burst that takes the minute's total past the old per-client limit (1200).
      const sent: Promise<Response>[] = [];
      for (let tick = 0; tick < 50; tick++) {
        for (let i = 0; i < 20; i++) sent.push(send());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      for (let i = 0; i < 300; i++) sent.push(send());
      const answers = await Promise.all(sent);
      expect(answers.length).toBe(1300);
      expect(statuses(answers)).toEqual({ 200: 1300 });
    } finally {
      await served.stop();
    }
  }, 60_000);

  test("an authenticated request writes no counter; a request without credentials writes one", async () => {
    const p = await limited({});
    const hit = spyOn(p.store, "hit");
    const reserve = spyOn(p.store, "reserve");
    for (let i = 0; i < 20; i++) expect((await token(p, "192.0.2.1")).status).toBe(200);
    expect(hit).not.toHaveBeenCalled();
    expect(reserve).not.toHaveBeenCalled();
    expect((await unauthenticated(p, "192.0.2.1")).status).toBe(400);
    expect(hit).toHaveBeenCalledTimes(1);
  });
});

describe("failed client authentications (defaults)", () => {
  test("50 failures for one client_id from one address: 401 up to auth_failures_per_client_ip (10), then 429 before the secret is checked", async () => {
    const p = await limited({});
    const budget = 10;
    const get_client = spyOn(p.store, "get_client");
    const answers: Response[] = [];
    for (let i = 0; i < 50; i++) answers.push(await token(p, "198.51.100.7", p.client_id, `guess-${i}`));
    expect(answers.slice(0, budget).map((r) => r.status)).toEqual(Array(budget).fill(401));
    for (const refused of answers.slice(budget)) await expect_429(refused);
    // Refused attempts did no work: the client was looked up for the first 10 only.
    expect(get_client).toHaveBeenCalledTimes(budget);
    // The 429 keeps the protocol handler's headers: a browser app can read it, nothing caches it.
    expect(answers[budget]!.headers.get("access-control-allow-origin")).toBe("*");
    expect(answers[budget]!.headers.get("cache-control")).toBe("no-store");
    expect(p.config.rate_limits.auth_failures_per_client_ip).toBe(budget);
  });

  test("the right secret from the same address is refused too (a 200 would tell the secret); from another address it works", async () => {
    const p = await limited({});
    for (let i = 0; i < 10; i++) expect((await token(p, "198.51.100.7", p.client_id, `guess-${i}`)).status).toBe(401);
    await expect_429(await token(p, "198.51.100.7"));
    expect((await token(p, "198.51.100.8")).status).toBe(200);
    // And from the attacker's address, another client is not affected (below the address limit).
    expect(
      (
        await p.fetch("/token", {
          method: "POST",
          headers: { ...FORM, "x-forwarded-for": "198.51.100.7" },
          body: "grant_type=authorization_code&code=x&client_id=spa&redirect_uri=x",
        })
      ).status,
    ).toBe(400);
  });

  test("no lockout of a client_id: past auth_failures_per_client, addresses that failed for it get 429, the real client does not", async () => {
    const p = await limited({ auth_failures_per_client: 20 });
    for (let i = 0; i < 30; i++) expect((await token(p, `203.0.113.${i}`, p.client_id, "wrong")).status).toBe(401);
    // Over the client_id's budget: an address that has failed for it is refused at once...
    await expect_429(await token(p, "203.0.113.0", p.client_id, "wrong"));
    await expect_429(await token(p, "203.0.113.1"));
    // ...the real client, which has not failed, is served from anywhere.
    for (let i = 0; i < 5; i++) expect((await token(p, "192.0.2.50")).status).toBe(200);
  });

  test("per address: one address failing for many client ids gets 429 past auth_failures_per_ip; other addresses do not", async () => {
    const p = await limited({ auth_failures_per_ip: 5 });
    for (let i = 0; i < 5; i++) expect((await token(p, "203.0.113.7", `client-${i}`, "x")).status).toBe(401);
    await expect_429(await token(p, "203.0.113.7", "client-9", "x"));
    await expect_429(await token(p, "203.0.113.7"));
    expect((await token(p, "203.0.113.8")).status).toBe(200);
  });

  test("the client_id of a form body and the sub of a client assertion are counted too", async () => {
    const p = await limited({ auth_failures_per_client_ip: 2 });
    const post = (body: Record<string, string>) =>
      p.fetch("/token", {
        method: "POST",
        headers: { ...FORM, "x-forwarded-for": "192.0.2.9" },
        body: new URLSearchParams({ grant_type: "client_credentials", ...body }).toString(),
      });
    // app authenticates with Basic: client_secret in the body is the wrong method, invalid_client.
    expect((await post({ client_id: p.client_id, client_secret: "x" })).status).toBe(401);
    const assertion = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(`{"iss":"${p.client_id}","sub":"${p.client_id}"}`).toString("base64url")}.`;
    expect(claimed_client_id(null, { client_assertion: assertion })).toBe(p.client_id);
    const asserted = { client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: assertion };
    expect((await post(asserted)).status).toBe(401);
    await expect_429(await post(asserted));
    await expect_429(await token(p, "192.0.2.9"));
  });

  test("concurrent guesses from an address with a failure on record never get past the limit", async () => {
    const p = await limited({ auth_failures_per_client_ip: 5 });
    expect((await token(p, "192.0.2.1", p.client_id, "first")).status).toBe(401);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => token(p, "192.0.2.1", p.client_id, `burst-${i}`)));
    expect(statuses(answers)).toEqual({ 401: 4, 429: 26 });
  });

  test("a client that failed a few times (a secret rotation) keeps working: a success gives its reservation back", async () => {
    const p = await limited({ auth_failures_per_client_ip: 3 });
    expect((await token(p, "192.0.2.1", p.client_id, "old-secret")).status).toBe(401);
    expect((await token(p, "192.0.2.1", p.client_id, "old-secret")).status).toBe(401);
    for (let i = 0; i < 20; i++) expect((await token(p, "192.0.2.1")).status).toBe(200);
    expect((await token(p, "192.0.2.1", p.client_id, "old-secret")).status).toBe(401);
    await expect_429(await token(p, "192.0.2.1"));
  });

  test("the window ends: after Retry-After seconds the right secret is served again", async () => {
    const p = await limited({ auth_failures_per_client_ip: 2, window_seconds: 30 });
    for (let i = 0; i < 2; i++) expect((await token(p, "192.0.2.1", p.client_id, "wrong")).status).toBe(401);
    const refused = await token(p, "192.0.2.1");
    await expect_429(refused, 30);
    p.clock.advance(Number(refused.headers.get("retry-after")));
    expect((await token(p, "192.0.2.1")).status).toBe(200);
  });

  test("counters live in the store: a second instance refuses what the first one counted", async () => {
    const p = await limited({ auth_failures_per_client_ip: 2 });
    const other = await p.instance();
    for (let i = 0; i < 2; i++) expect((await token(p, "192.0.2.1", p.client_id, "wrong")).status).toBe(401);
    await expect_429(
      await other("/token", {
        method: "POST",
        headers: { ...FORM, "x-forwarded-for": "192.0.2.1", authorization: basic(p.client_id, p.secret) },
        body: "grant_type=client_credentials",
      }),
    );
  });

  test("/revoke and /introspect share the failure counters of /token", async () => {
    const p = await limited({ auth_failures_per_client_ip: 2 });
    const call = (path: string, secret: string) =>
      p.fetch(path, { method: "POST", headers: { ...FORM, "x-forwarded-for": "192.0.2.1", authorization: basic(p.client_id, secret) }, body: "token=abc" });
    expect((await call("/revoke", "wrong")).status).toBe(401);
    expect((await call("/introspect", "wrong")).status).toBe(401);
    await expect_429(await call("/revoke", p.secret));
    await expect_429(await call("/introspect", p.secret));
    await expect_429(await token(p, "192.0.2.1"));
  });

  test("/par and /device_authorization count as /token: their failures refuse /token, and /token's refuse them", async () => {
    const p = await limited({ auth_failures_per_client_ip: 2 });
    const call = (path: string, secret: string) =>
      p.fetch(path, { method: "POST", headers: { ...FORM, "x-forwarded-for": "192.0.2.7", authorization: basic(p.client_id, secret) }, body: "response_type=code&scope=openid" });
    expect((await call("/par", "wrong")).status).toBe(401);
    expect((await call("/device_authorization", "wrong")).status).toBe(401);
    await expect_429(await token(p, "192.0.2.7"));
    await expect_429(await call("/par", p.secret));
    await expect_429(await call("/device_authorization", p.secret));
  });
});

describe("requests without client credentials (defaults)", () => {
  test("limited per address (unauthenticated_per_ip); a request with credentials from the same address is not", async () => {
    const p = await limited({ unauthenticated_per_ip: 3 });
    for (let i = 0; i < 3; i++) expect((await unauthenticated(p, "192.0.2.1")).status).toBe(400);
    const refused = await unauthenticated(p, "192.0.2.1");
    await expect_429(refused);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    await expect_429(await p.fetch("/revoke", { method: "POST", headers: { ...FORM, "x-forwarded-for": "192.0.2.1" }, body: "token=abc&client_id=spa" }));
    expect((await token(p, "192.0.2.1")).status).toBe(200);
    expect((await unauthenticated(p, "192.0.2.2")).status).toBe(400);
  });
});

describe("IPv6 clients count by their /64 (issue 27, finding 8)", () => {
  test("addresses of one /64 share the per-address limit; another /64 does not; an IPv4-mapped address counts as its IPv4", async () => {
    const p = await limited({ unauthenticated_per_ip: 3 });
    for (const ip of ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::3"]) expect((await unauthenticated(p, ip)).status).toBe(400);
    await expect_429(await unauthenticated(p, "2001:db8:1:2:abcd:1:2:3"));
    expect((await unauthenticated(p, "2001:db8:1:3::1")).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await unauthenticated(p, "192.0.2.9")).status).toBe(400);
    await expect_429(await unauthenticated(p, "::ffff:192.0.2.9"));
  });
});

describe("optional quotas (off by default): /token", () => {
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
    const other = await p.fetch("/token", {
      method: "POST",
      headers: { ...FORM, "x-forwarded-for": "198.51.100.9" },
      body: "grant_type=authorization_code&code=x&client_id=spa&redirect_uri=x",
    });
    expect(other.status).toBe(400);
  });

  test("per client: the client_id of a form body and the sub of a client assertion are the claimed client too", async () => {
    const p = await limited({ token_per_client: 2, token_per_ip: 1000 });
    const form = (ip: string) =>
      p.fetch("/token", { method: "POST", headers: { ...FORM, "x-forwarded-for": ip }, body: "grant_type=authorization_code&code=x&redirect_uri=x&client_id=spa" });
    expect((await form("192.0.2.1")).status).toBe(400);
    expect((await form("192.0.2.2")).status).toBe(400);
    await expect_429(await form("192.0.2.3"));
    const assertion = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"spa"}').toString("base64url")}.`;
    expect(claimed_client_id(null, { client_assertion: assertion })).toBe("spa");
    const asserted = await p.fetch("/token", {
      method: "POST",
      headers: { ...FORM, "x-forwarded-for": "192.0.2.4" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        client_assertion: assertion,
      }).toString(),
    });
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
    const register = (ip: string) =>
      p.fetch("/register", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": ip },
        body: JSON.stringify({ redirect_uris: ["https://rp.test/cb"] }),
      });
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
  test("IDP_RATE_LIMITS=off removes the limits (and their counter reads and writes)", async () => {
    t = await in_process({ rate_limits: { enabled: false, token_per_client: 1, auth_failures_per_client_ip: 1, unauthenticated_per_ip: 1 } });
    const calls = [spyOn(t.store, "hit"), spyOn(t.store, "get_counter"), spyOn(t.store, "reserve")];
    for (let i = 0; i < 5; i++) expect((await token(t, "")).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await token(t, "", t.client_id, "wrong")).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await unauthenticated(t, "")).status).toBe(400);
    expect((await token(t, "")).status).toBe(200);
    for (const spy of calls) expect(spy).not.toHaveBeenCalled();
    expect(load_config({ IDP_RATE_LIMITS: "off" }).rate_limits.enabled).toBe(false);
    expect(load_config({}).rate_limits.enabled).toBe(true);
  });

  test("every limit has an environment variable; the defaults target abuse, the quotas are off", () => {
    const config = load_config({
      IDP_RATE_LIMIT_WINDOW_SECONDS: "10",
      IDP_RATE_LIMIT_AUTH_FAILURES_PER_CLIENT_IP: "11",
      IDP_RATE_LIMIT_AUTH_FAILURES_PER_IP: "12",
      IDP_RATE_LIMIT_AUTH_FAILURES_PER_CLIENT: "13",
      IDP_RATE_LIMIT_UNAUTHENTICATED_PER_IP: "14",
      IDP_RATE_LIMIT_TOKEN_PER_CLIENT: "1",
      IDP_RATE_LIMIT_TOKEN_PER_IP: "2",
      IDP_RATE_LIMIT_REVOKE_PER_CLIENT: "3",
      IDP_RATE_LIMIT_REVOKE_PER_IP: "4",
      IDP_RATE_LIMIT_INTROSPECT_PER_CLIENT: "5",
      IDP_RATE_LIMIT_INTROSPECT_PER_IP: "6",
      IDP_RATE_LIMIT_REGISTER_PER_CLIENT: "7",
      IDP_RATE_LIMIT_REGISTER_PER_IP: "8",
      IDP_RATE_LIMIT_REGISTER_PER_IP_PER_DAY: "15",
      IDP_RATE_LIMIT_FEDERATION_START_PER_IP: "9",
      IDP_RATE_LIMIT_AUTHORIZE_PER_IP: "15",
    });
    expect(config.rate_limits).toEqual({
      enabled: true,
      window_seconds: 10,
      auth_failures_per_client_ip: 11,
      auth_failures_per_ip: 12,
      auth_failures_per_client: 13,
      unauthenticated_per_ip: 14,
      token_per_client: 1,
      token_per_ip: 2,
      revoke_per_client: 3,
      revoke_per_ip: 4,
      introspect_per_client: 5,
      introspect_per_ip: 6,
      register_per_client: 7,
      register_per_ip: 8,
      register_per_ip_per_day: 15,
      federation_start_per_ip: 9,
      authorize_per_ip: 15,
    });
    expect(load_config({}).rate_limits).toEqual({
      enabled: true,
      window_seconds: 60,
      auth_failures_per_client_ip: 10,
      auth_failures_per_ip: 100,
      auth_failures_per_client: 100,
      unauthenticated_per_ip: 1200,
      token_per_client: 0,
      token_per_ip: 0,
      revoke_per_client: 0,
      revoke_per_ip: 0,
      introspect_per_client: 0,
      introspect_per_ip: 0,
      register_per_client: 60,
      register_per_ip: 60,
      register_per_ip_per_day: 500,
      federation_start_per_ip: 60,
      authorize_per_ip: 300,
    });
    // 0 is "no quota" for a quota; a failure limit of 0 would refuse every client: refused.
    expect(load_config({ IDP_RATE_LIMIT_TOKEN_PER_IP: "0" }).rate_limits.token_per_ip).toBe(0);
    expect(() => load_config({ IDP_RATE_LIMIT_TOKEN_PER_IP: "-1" })).toThrow("rate_limits.token_per_ip (IDP_RATE_LIMIT_TOKEN_PER_IP)");
    expect(() => load_config({ IDP_RATE_LIMIT_AUTH_FAILURES_PER_CLIENT_IP: "0" })).toThrow("rate_limits.auth_failures_per_client_ip (IDP_RATE_LIMIT_AUTH_FAILURES_PER_CLIENT_IP)");
  });
});
