/**
 * Anonymous registration (IDP_REGISTRATION=open, no initial access token) is bounded
 * (oidc/registration/access.ts, oidc/registration/unused_clients.ts): each address registers at
 * most `rate_limits.register_per_ip_per_day` clients a day (429 with Retry-After past it), and the
 * clients it makes are marked anonymous, with their first token recorded once; the purge of those
 * never used is tested on both databases in tests/ops/purge_unused_clients.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { token_request } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { WEB_CLIENT, registered } from "./register_helpers.ts";

/** A client that gets tokens by itself (client_credentials), so a test can use it at once. */
const SERVICE = { client_name: "Service", grant_types: ["client_credentials"], response_types: [], token_endpoint_auth_method: "client_secret_basic" };

/** POST /register from the address `ip` (X-Forwarded-For, the provider trusts the proxy). */
function register_from(t: TestProvider, ip: string, metadata: unknown = WEB_CLIENT): Promise<Response> {
  return fetch(`${t.url}/register`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", "x-forwarded-for": ip },
    body: JSON.stringify(metadata),
  });
}

describe('registration "open": a daily quota per address', () => {
  let t: TestProvider;
  beforeAll(async () => {
    // A per-minute limit that stays out of the way: the daily quota is what is tested.
    t = await start_provider({ config: { registration: "open", trust_proxy: true, rate_limits: { register_per_ip: 1000, register_per_ip_per_day: 3 } } });
  });
  afterAll(() => t.stop());

  test("past the quota an address gets 429 temporarily_unavailable with Retry-After until the day is over; another address still registers", async () => {
    for (let i = 0; i < 3; i++) expect((await register_from(t, "203.0.113.7")).status).toBe(201);
    const refused = await register_from(t, "203.0.113.7");
    expect(refused.status).toBe(429);
    const retry_after = Number(refused.headers.get("retry-after"));
    expect(retry_after).toBeGreaterThan(23 * 3600);
    expect(retry_after).toBeLessThanOrEqual(24 * 3600);
    const body = (await refused.json()) as { error: string; error_description: string };
    expect(body.error).toBe("temporarily_unavailable");
    expect(body.error_description).toContain("too many registrations from this address today");
    // Counted before the metadata is read: invalid metadata does not get past the quota either.
    expect((await register_from(t, "203.0.113.7", { redirect_uris: "not a list" })).status).toBe(429);
    expect((await register_from(t, "203.0.113.8")).status).toBe(201);

    // The window is a day, not the per-minute window of the other registration limits.
    t.clock.advance(3600);
    try {
      expect((await register_from(t, "203.0.113.7")).status).toBe(429);
    } finally {
      t.clock.advance(-3600);
    }
  });

  test("a client registered anonymously is marked so; its first token is recorded once", async () => {
    const info = await registered(t, SERVICE);
    expect(await t.store.get_client(info.client_id)).toMatchObject({ anonymous: true, first_used_at: null });
    const auth = { method: "basic" as const, client_id: info.client_id, secret: info.client_secret! };
    const first = await token_request(t, { grant_type: "client_credentials" }, auth);
    expect(first.status).toBe(200);
    const used_at = (await t.store.get_client(info.client_id))!.first_used_at;
    expect(used_at).toBe(t.clock.now());
    t.clock.advance(60);
    try {
      expect((await token_request(t, { grant_type: "client_credentials" }, auth)).status).toBe(200);
    } finally {
      t.clock.advance(-60);
    }
    expect((await t.store.get_client(info.client_id))!.first_used_at).toBe(used_at);
    // A refused token request is no use.
    const other = await registered(t, SERVICE);
    expect((await token_request(t, { grant_type: "client_credentials" }, { method: "basic", client_id: other.client_id, secret: "wrong" })).status).toBe(401);
    expect((await t.store.get_client(other.client_id))!.first_used_at).toBeNull();
  });

  test("0 removes the quota", async () => {
    const unlimited = await start_provider({ config: { registration: "open", trust_proxy: true, rate_limits: { register_per_ip: 1000, register_per_ip_per_day: 0 } } });
    try {
      for (let i = 0; i < 5; i++) expect((await register_from(unlimited, "203.0.113.9")).status).toBe(201);
    } finally {
      await unlimited.stop();
    }
  });
});

describe('registration "token": no daily quota, not anonymous', () => {
  test("clients registered with an initial access token are not anonymous and do not count against the quota", async () => {
    const t = await start_provider({ config: { registration: "token", trust_proxy: true, rate_limits: { register_per_ip: 1000, register_per_ip_per_day: 1 } } });
    try {
      const token = random_token(32);
      await t.store.create_initial_access_token({ token_hash: sha256(token), expires_at: null });
      for (let i = 0; i < 3; i++) {
        const info = await registered(t, WEB_CLIENT, { token });
        expect(await t.store.get_client(info.client_id)).toMatchObject({ anonymous: false });
      }
    } finally {
      await t.stop();
    }
  });
});
