/**
 * Behind a reverse proxy: X-Forwarded-For is believed only with trust_proxy and from a trusted
 * proxy (trusted_proxies), walked right to left past trusted hops; a client-supplied entry is
 * never used, and X-Forwarded-Proto/Host never change a URL.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import type { Context } from "../../src/fw/index.ts";
import { client_ip } from "../../src/http/middleware/proxy.ts";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, pkce } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

function context(ip: string, headers: Record<string, string> | Headers = {}): Pick<Context, "request" | "headers"> {
  const request = { ip } as Context["request"];
  return { request, headers: headers instanceof Headers ? headers : new Headers(headers) };
}

const LOOPBACK = ["127.0.0.0/8", "::1"];

describe("client_ip", () => {
  test("trust_proxy off: forwarding headers are ignored", () => {
    expect(client_ip(context("10.0.0.1", { "x-forwarded-for": "203.0.113.7" }), { trust_proxy: false, trusted_proxies: LOOPBACK })).toBe("10.0.0.1");
  });

  test("trust_proxy on: the right-most X-Forwarded-For entry, never a client-supplied one", () => {
    const on = { trust_proxy: true, trusted_proxies: LOOPBACK };
    expect(client_ip(context("127.0.0.1", { "x-forwarded-for": "203.0.113.7" }), on)).toBe("203.0.113.7");
    // The client sent "6.6.6.6"; the proxy appended the address it saw.
    expect(client_ip(context("127.0.0.1", { "x-forwarded-for": "6.6.6.6, 203.0.113.7" }), on)).toBe("203.0.113.7");
    expect(client_ip(context("127.0.0.1", { "x-forwarded-for": "2001:db8::1" }), on)).toBe("2001:db8::1");
    expect(client_ip(context("127.0.0.1", { "x-forwarded-for": "[2001:db8::2]" }), on)).toBe("2001:db8::2");
  });

  test("trust_proxy on: several header lines count as one list", () => {
    const headers = new Headers();
    headers.append("x-forwarded-for", "6.6.6.6");
    headers.append("x-forwarded-for", "198.51.100.9");
    expect(client_ip(context("127.0.0.1", headers), { trust_proxy: true, trusted_proxies: LOOPBACK })).toBe("198.51.100.9");
  });

  test("trust_proxy on: a missing, empty or malformed entry falls back to the socket address", () => {
    const on = { trust_proxy: true, trusted_proxies: LOOPBACK };
    expect(client_ip(context("127.0.0.1"), on)).toBe("127.0.0.1");
    expect(client_ip(context("127.0.0.1", { "x-forwarded-for": "" }), on)).toBe("127.0.0.1");
    expect(client_ip(context("127.0.0.1", { "x-forwarded-for": "1.2.3.4, not-an-ip" }), on)).toBe("127.0.0.1");
    expect(client_ip(context("127.0.0.1", { "x-forwarded-for": "1.2.3.4," }), on)).toBe("127.0.0.1");
  });
});

describe("client_ip: only trusted proxies are believed (issue 27, finding 8)", () => {
  const trusted_proxies = ["10.0.0.0/8", "2001:db8:aa::/48"];
  const on = { trust_proxy: true, trusted_proxies };

  test("a peer that is not a trusted proxy is the client, whatever X-Forwarded-For says", () => {
    expect(client_ip(context("198.51.100.20", { "x-forwarded-for": "203.0.113.7" }), on)).toBe("198.51.100.20");
    expect(client_ip(context("127.0.0.1", { "x-forwarded-for": "203.0.113.7" }), on)).toBe("127.0.0.1");
  });

  test("several trusted hops (a CDN in front of nginx) are walked right to left", () => {
    // client 203.0.113.7 → CDN 10.1.1.1 → nginx 10.2.2.2 → us; the client forged "6.6.6.6".
    expect(client_ip(context("10.2.2.2", { "x-forwarded-for": "6.6.6.6, 203.0.113.7, 10.1.1.1" }), on)).toBe("203.0.113.7");
    expect(client_ip(context("2001:db8:aa::5", { "x-forwarded-for": "2001:db8:bb::9" }), on)).toBe("2001:db8:bb::9");
  });

  test("when every entry is a trusted proxy, the left-most is the best there is", () => {
    expect(client_ip(context("10.2.2.2", { "x-forwarded-for": "10.3.3.3, 10.1.1.1" }), on)).toBe("10.3.3.3");
  });

  test("a malformed entry stops the walk at the last hop known", () => {
    expect(client_ip(context("10.2.2.2", { "x-forwarded-for": "203.0.113.7, junk, 10.1.1.1" }), on)).toBe("10.1.1.1");
  });
});

describe("a client reaching the port directly cannot choose the address the limits count", () => {
  let t: TestProvider;
  beforeAll(async () => {
    // The proxy is elsewhere (10.9.9.9): this test's requests come from loopback, straight to the port.
    t = await start_provider({ config: { trust_proxy: true, trusted_proxies: ["10.9.9.9"], registration: "open", rate_limits: { register_per_ip: 3 } } });
  });
  afterAll(() => t.stop());

  test("registrations with forged X-Forwarded-For addresses all count against the real one (429 past the limit)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${t.url}/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `203.0.113.${i + 1}` },
        body: JSON.stringify({ redirect_uris: ["https://rp.example.com/cb"], client_name: `forged ${i}` }),
      });
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
  });
});

/** A failed sign-in sent with forwarding headers; returns the audit event's address. */
async function failed_login_ip(t: TestProvider, headers: Record<string, string>): Promise<string | null> {
  const browser = new Browser();
  const p = pkce();
  const start = await browser.get(authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }), headers);
  const page = await browser.get(start.headers.get("location")!, headers);
  const html = await page.text();
  const form = { csrf: hidden_field(html, "csrf")!, username: "alice", password: "wrong password" };
  const response = await browser.request("POST", form_action(html)!, { form, headers });
  expect(response.status).toBe(200);
  const [event] = await t.store.list_audit_events({ type: "login", limit: 1 });
  return event?.ip ?? null;
}

const FORWARDED = { "x-forwarded-for": "6.6.6.6, 203.0.113.7", "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" };

describe.each([false, true])("provider with trust_proxy=%p", (trust_proxy) => {
  let t: TestProvider;
  beforeAll(async () => {
    t = await start_provider({ config: { trust_proxy } });
  });
  afterAll(() => t.stop());

  test(`the audit log of a failed sign-in records ${trust_proxy ? "the proxy-appended address" : "the socket address"}`, async () => {
    expect(await failed_login_ip(t, FORWARDED)).toBe(trust_proxy ? "203.0.113.7" : "127.0.0.1");
  });

  test("X-Forwarded-Proto and X-Forwarded-Host do not change discovery or redirects", async () => {
    const discovery = (await (await fetch(`${t.url}/.well-known/openid-configuration`, { headers: FORWARDED })).json()) as Record<string, string>;
    expect(discovery.issuer).toBe(t.issuer);
    expect(discovery.authorization_endpoint).toBe(`${t.issuer}/authorize`);
    expect(JSON.stringify(discovery)).not.toContain("evil.example");
    const p = pkce();
    const start = await new Browser().get(authorization_url(t, { code_challenge: p.challenge, code_challenge_method: "S256" }), FORWARDED);
    expect(start.headers.get("location")!.startsWith(`${t.issuer}/interaction/`)).toBe(true);
  });
});
