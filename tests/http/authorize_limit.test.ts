/**
 * /authorize is rate-limited per address (rate_limits.authorize_per_ip, counters.ts
 * `interactions_per_ip`): nobody is authenticated there, and a request that needs a sign-in
 * stores an interaction, so a flood from one address must not fill the store. Past the limit:
 * 429 with Retry-After and the "Too many attempts" page in the browser's language, and no
 * interaction stored. A code entered at /device (which starts one too) shares the count. Other
 * addresses go on (X-Forwarded-For from the trusted loopback proxy plays them).
 */
import { afterEach, describe, expect, test } from "../helpers/test_api.ts";
import { browser_from, form_action, hidden_field } from "../helpers/browser.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { load_config } from "../../src/app/config.ts";

const LIMIT = 3;
let t: TestProvider | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function limited(rate_limits: Record<string, unknown>): Promise<TestProvider> {
  t = await start_provider({ config: { trust_proxy: true, rate_limits } });
  return t;
}

/** A valid authorization request of the test client (PKCE, state): the login page when let through. */
function authorize(p: TestProvider, ip: string, headers: Record<string, string> = {}): Promise<Response> {
  const query = new URLSearchParams({
    client_id: p.client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: "code",
    scope: "openid",
    state: "s",
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
  });
  return fetch(`${p.url}/authorize?${query}`, { redirect: "manual", headers: { "x-forwarded-for": ip, ...headers } });
}

/** The interactions in the store: each is purged once past its expiry, so a purge far ahead counts them all. */
async function interactions_stored(p: TestProvider): Promise<number> {
  return (await p.store.purge_expired(p.clock.now() + 10 * 24 * 3600)).interactions;
}

describe("rate limit of /authorize", () => {
  test("past the limit an address gets 429 with Retry-After, the page in its language, and no interaction is stored", async () => {
    const p = await limited({ authorize_per_ip: LIMIT });
    for (let i = 0; i < LIMIT; i++) {
      const ok = await authorize(p, "203.0.113.7");
      expect(ok.status).toBe(302);
      expect(ok.headers.get("location")).toMatch(/\/interaction\/[^/]+\/login$/);
    }
    const refused = await authorize(p, "203.0.113.7", { accept: "text/html", "accept-language": "de" });
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(refused.headers.get("location")).toBeNull();
    expect(refused.headers.getSetCookie().filter((line) => line.includes("idp_interaction"))).toEqual([]);
    const page = await refused.text();
    expect(page).toContain("Zu viele Versuche");
    expect(page).toContain("erneut");
    // Another address is not affected.
    expect((await authorize(p, "198.51.100.9")).status).toBe(302);
    expect(await interactions_stored(p)).toBe(LIMIT + 1);
  });

  test("a code entered at /device counts against the same limit", async () => {
    const p = await limited({ authorize_per_ip: 2 });
    expect((await authorize(p, "203.0.113.8")).status).toBe(302);
    const browser = browser_from("203.0.113.8");
    const html = await (await browser.get(`${p.url}/device`)).text();
    const entered = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, user_code: "BCDF-GHJK" });
    // A wrong code, let through: the form again.
    expect(entered.status).toBe(400);
    const refused = await authorize(p, "203.0.113.8");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("IDP_RATE_LIMITS=off and 0 remove it; 300 per window by default", async () => {
    for (const rate_limits of [{ enabled: false, authorize_per_ip: 1 }, { authorize_per_ip: 0 }]) {
      const p = await limited(rate_limits);
      for (let i = 0; i < 3; i++) expect((await authorize(p, "203.0.113.9")).status).toBe(302);
      await p.stop();
      t = undefined;
    }
    expect(load_config({}).rate_limits.authorize_per_ip).toBe(300);
    expect(load_config({ IDP_RATE_LIMIT_AUTHORIZE_PER_IP: "0" }).rate_limits.authorize_per_ip).toBe(0);
    expect(() => load_config({ IDP_RATE_LIMIT_AUTHORIZE_PER_IP: "-1" })).toThrow("rate_limits.authorize_per_ip (IDP_RATE_LIMIT_AUTHORIZE_PER_IP)");
  });
});
