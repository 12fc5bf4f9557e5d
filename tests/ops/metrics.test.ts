/**
 * GET /metrics: off unless IDP_METRICS_TOKEN is set, bearer-protected, Prometheus text format,
 * with request counts by route pattern (never the raw path), a latency histogram, login
 * outcomes and tokens issued by grant.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { Metrics } from "../../src/oidc/ops/metrics.ts";
import { Browser, form_action, hidden_field } from "../helpers/browser.ts";
import { authorization_url, get_code, redeem, userinfo } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

const TOKEN = "metrics-token-0123456789abcdef";

function scrape(t: TestProvider, authorization: string | null = `Bearer ${TOKEN}`): Promise<Response> {
  return fetch(`${t.url}/metrics`, { headers: authorization === null ? {} : { authorization } });
}

/** The value of one sample line (labels given in exposition order), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A wrong password at the login page (the page answers 200 with the error). */
async function failed_login(t: TestProvider): Promise<void> {
  const browser = new Browser();
  const start = await browser.get(authorization_url(t));
  const page = await browser.get(new URL(start.headers.get("location")!, t.url).href);
  const html = await page.text();
  const answer = await browser.post(form_action(html)!, { csrf: hidden_field(html, "csrf")!, username: "alice", password: "not the password" });
  expect(answer.status).toBe(200);
}

describe("metrics off (no IDP_METRICS_TOKEN)", () => {
  let t: TestProvider;
  beforeAll(async () => {
    t = await start_provider();
  });
  afterAll(() => t.stop());

  test("GET /metrics is 404, with or without a token", async () => {
    expect((await scrape(t)).status).toBe(404);
    expect((await scrape(t, null)).status).toBe(404);
  });
});

describe("metrics on", () => {
  let t: TestProvider;
  beforeAll(async () => {
    t = await start_provider({ config: { metrics_token: TOKEN } });
  });
  afterAll(() => t.stop());

  test("without a token, with another scheme or another token: 401 with a Bearer challenge", async () => {
    for (const authorization of [null, `Basic ${btoa(`x:${TOKEN}`)}`, "Bearer wrong-token-0123456789abcdef", `Bearer ${TOKEN}x`, "Bearer "]) {
      const response = await scrape(t, authorization);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(await response.text()).not.toContain("idp_");
    }
  });

  test("text format 0.0.4; counts a flow, a failed login, a 404 and a 405 by route pattern", async () => {
    const { code, pkce } = await get_code(t);
    const token = await redeem(t, code, pkce!.verifier);
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    expect((await userinfo(t, access_token)).status).toBe(200);
    await failed_login(t);
    expect((await fetch(`${t.url}/no/such/page/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await fetch(`${t.url}/token`)).status).toBe(405);

    const response = await scrape(t);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const text = await response.text();

    expect(sample(text, 'idp_logins_total{outcome="success"}')).toBe(1);
    expect(sample(text, 'idp_logins_total{outcome="failure"}')).toBe(1);
    expect(sample(text, 'idp_tokens_issued_total{grant_type="authorization_code"}')).toBe(1);
    expect(sample(text, 'idp_http_requests_total{route="/token",method="POST",status="200"}')).toBe(1);
    expect(sample(text, 'idp_http_requests_total{route="/userinfo",method="GET",status="200"}')).toBe(1);
    // The login form: posted once with the right password (303) and once with a wrong one (200).
    expect(sample(text, 'idp_http_requests_total{route="/interaction/:id/login",method="POST",status="303"}')).toBe(1);
    expect(sample(text, 'idp_http_requests_total{route="/interaction/:id/login",method="POST",status="200"}')).toBe(1);
    expect(sample(text, 'idp_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    expect(sample(text, 'idp_http_requests_total{route="unmatched",method="GET",status="405"}')).toBe(1);
    // Bounded cardinality: no interaction id, no random path ever becomes a label.
    expect(text).not.toMatch(/\/interaction\/[A-Za-z0-9_-]{20,}/);
    expect(text).not.toContain("/no/such/page");

    // The histogram: cumulative buckets ending in +Inf == _count.
    const buckets = text
      .split("\n")
      .filter((l) => l.startsWith('idp_http_request_duration_seconds_bucket{route="/token",method="POST",'))
      .map((l) => Number(l.split(" ")[1]));
    expect(buckets.length).toBe(12);
    expect([...buckets].sort((a, b) => a - b)).toEqual(buckets);
    expect(buckets.at(-1)).toBe(sample(text, 'idp_http_request_duration_seconds_count{route="/token",method="POST"}')!);
    expect(sample(text, 'idp_http_request_duration_seconds_sum{route="/token",method="POST"}')).toBeGreaterThan(0);
  });

  test("every line is a comment or a well-formed sample; every family has HELP and TYPE", async () => {
    const text = await (await scrape(t)).text();
    expect(text.endsWith("\n")).toBe(true);
    for (const line of text.trimEnd().split("\n")) {
      if (line.startsWith("#")) expect(line).toMatch(/^# (HELP|TYPE) [a-z_]+ .+$/);
      else expect(line).toMatch(/^[a-z_]+(\{([a-z_]+="([^"\\\n]|\\.)*",?)*\})? (\d+(\.\d+)?(e-?\d+)?|\+Inf)$/);
    }
    for (const family of ["idp_http_requests_total", "idp_http_request_duration_seconds", "idp_logins_total", "idp_tokens_issued_total"]) {
      expect(text).toContain(`# TYPE ${family} `);
      expect(text).toContain(`# HELP ${family} `);
    }
  });

  test("the scrape itself is counted (each instance reports its own requests)", async () => {
    const before = sample(await (await scrape(t)).text(), 'idp_http_requests_total{route="/metrics",method="GET",status="200"}') ?? 0;
    const after = sample(await (await scrape(t)).text(), 'idp_http_requests_total{route="/metrics",method="GET",status="200"}');
    expect(after).toBe(before + 1);
  });
});

describe("Metrics (unit)", () => {
  test("label values are escaped; unknown methods are one series", () => {
    const metrics = new Metrics();
    metrics.request('/a"b\\c', "GET", 200, 0.001);
    metrics.request(undefined, "BREW", 404, 0.001);
    metrics.request(undefined, "PROPFIND", 404, 0.001);
    const text = metrics.render();
    expect(text).toContain('idp_http_requests_total{route="/a\\"b\\\\c",method="GET",status="200"} 1');
    expect(text).toContain('idp_http_requests_total{route="unmatched",method="other",status="404"} 2');
  });

  test("the duration histogram spans 5 ms … 10 s (README, Metrics): first bucket le=0.005, last finite le=10", () => {
    const metrics = new Metrics();
    metrics.request("/x", "GET", 200, 0.001);
    const les = metrics
      .render()
      .split("\n")
      .filter((l) => l.startsWith('idp_http_request_duration_seconds_bucket{route="/x",method="GET",'))
      .map((l) => /le="([^"]+)"/.exec(l)![1]!);
    expect(les[0]).toBe("0.005");
    expect(les.at(-2)).toBe("10");
    expect(les.at(-1)).toBe("+Inf");
  });

  test("a duration lands in its bucket and every larger one", () => {
    const metrics = new Metrics();
    metrics.request("/x", "GET", 200, 0.3);
    const text = metrics.render();
    expect(text).toContain('idp_http_request_duration_seconds_bucket{route="/x",method="GET",le="0.25"} 0');
    expect(text).toContain('idp_http_request_duration_seconds_bucket{route="/x",method="GET",le="0.5"} 1');
    expect(text).toContain('idp_http_request_duration_seconds_bucket{route="/x",method="GET",le="+Inf"} 1');
  });
});
