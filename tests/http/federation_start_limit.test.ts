/**
 * GET /federation/NAME/start is rate-limited per address (rate_limits.federation_start_per_ip):
 * each start stores a pending state and sends the browser to the upstream, so a flood from one
 * address gets 429 with Retry-After and the "Too many attempts" page, for every upstream, with
 * one audit entry per window. The upstream is a minimal discovery document (serve_fetch).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { randomBytes } from "node:crypto";
import { free_port, start_provider, type TestProvider } from "../helpers/provider.ts";
import { new_upstream } from "../../src/oidc/federation/upstreams.ts";

const LIMIT = 3;
let t: TestProvider;
let fake: FetchServer;

beforeAll(async () => {
  const port = await free_port();
  const fake_url = `http://127.0.0.1:${port}`;
  fake = await serve_fetch(
    (request) =>
      new URL(request.url).pathname === "/.well-known/openid-configuration"
        ? Response.json({
            issuer: fake_url,
            authorization_endpoint: `${fake_url}/authorize`,
            token_endpoint: `${fake_url}/token`,
            jwks_uri: `${fake_url}/jwks`,
            response_types_supported: ["code"],
          })
        : new Response("not found", { status: 404 }),
    { port },
  );
  t = await start_provider({
    config: {
      outbound: { allow_http: true, allow: ["127.0.0.1"] },
      federation: { secret_key: randomBytes(32).toString("base64url") },
      rate_limits: { federation_start_per_ip: LIMIT },
    },
  });
  for (const name of ["one", "two"]) await t.store.create_upstream(new_upstream(t.config, { name, issuer: fake_url, client_id: "our-idp" }));
});

afterAll(async () => {
  await fake.stop();
  await t.stop();
});

const start = (name: string) => fetch(`${t.url}/federation/${name}/start`, { redirect: "manual" });

describe("rate limit of /federation/NAME/start", () => {
  test("the starts of one address over the limit get 429 with Retry-After, for every upstream; audited once", async () => {
    for (let i = 0; i < LIMIT; i++) {
      const ok = await start(i % 2 === 0 ? "one" : "two");
      expect(ok.status).toBe(302);
      expect(ok.headers.get("location")).toStartWith(`http://127.0.0.1:${fake.port}/authorize?`);
    }
    for (const name of ["one", "two", "unknown"]) {
      const refused = await start(name);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("location")).toBeNull();
      expect(await refused.text()).toContain("Too many sign-ins were started from your network");
    }
    const audited = (await t.store.list_audit_events({ limit: 100 })).filter((e) => e.type === "federation_login" && e.details?.reason === "rate limited");
    expect(audited.length).toBe(1);
    expect(audited[0]!.ip).toBe("127.0.0.1");
  });

  test("the setting: 60 by default, 0 (off) accepted, a negative number refused naming the variable", async () => {
    const { load_config } = await import("../../src/app/config.ts");
    expect(load_config({}).rate_limits.federation_start_per_ip).toBe(60);
    expect(load_config({ IDP_RATE_LIMIT_FEDERATION_START_PER_IP: "0" }).rate_limits.federation_start_per_ip).toBe(0);
    expect(() => load_config({ IDP_RATE_LIMIT_FEDERATION_START_PER_IP: "-1" })).toThrow("rate_limits.federation_start_per_ip (IDP_RATE_LIMIT_FEDERATION_START_PER_IP)");
  });
});
