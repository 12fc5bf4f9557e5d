/**
 * Request size and time limits over real HTTP (raw sockets where fetch would refuse):
 *   413 body over IDP_BODY_LIMIT (RFC 9110 §15.5.14), 414 URL over 8192 characters (§15.5.15),
 *   431 headers over Bun's 16 KiB / ~200 fields (RFC 6585 §5), 400 over 100 query or form
 *   parameters, and connections that send nothing, trickle headers or trickle a body closed by
 *   the server (Bun's header timeout, and IDP_IDLE_TIMEOUT_SECONDS for the body). Deno's server
 *   has its own header limits (a 400 past 64 KiB or 100-odd fields) and neither timeout (README,
 *   "Running on Deno"): those tests are each runtime's.
 * At the protocol endpoints the limits answer in the OAuth error shape (invalid_request).
 */
import { afterAll, beforeAll, describe, expect, RUNTIME, test } from "../helpers/test_api.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { raw } from "./raw.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { idle_timeout_seconds: 1, body_limit: 4096 } });
});
afterAll(() => t.stop());

const form_post = (path: string, body: string, extra = "") =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n${extra}Connection: close\r\n\r\n${body}`;

function oauth_error(answer: { status: number | null; headers: Map<string, string>; body: string }, status: number): string {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("content-type")).toStartWith("application/json");
  const body = JSON.parse(answer.body) as { error: string; error_description: string };
  expect(body.error).toBe("invalid_request");
  return body.error_description;
}

describe("413: bodies over the limit", () => {
  const big = `a=${"x".repeat(5000)}`;

  test("at /token, with Content-Length: 413 invalid_request (RFC 6749 §5.2 shape)", async () => {
    expect(oauth_error(await raw(t.url, form_post("/token", big)), 413)).toContain("larger than 4096");
  });

  test("at /token, chunked: 413 invalid_request too", async () => {
    const request = `POST /token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`;
    oauth_error(await raw(t.url, request), 413);
  });

  test("at /register: 413 invalid_request; at a page: a 413 page", async () => {
    const json = JSON.stringify({ redirect_uris: ["https://rp.test/cb"], client_name: "x".repeat(5000) });
    const registration = await raw(
      t.url,
      `POST /register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\nConnection: close\r\n\r\n${json}`,
    );
    oauth_error(registration, 413);
    const page = await raw(t.url, form_post("/account/login", big, "Accept: text/html\r\n").replace("Accept: application/json\r\n", ""));
    expect(page.status).toBe(413);
    expect(page.headers.get("content-type")).toStartWith("text/html");
  });
});

describe("414 and 431: long URLs and big headers", () => {
  // Regression: the 414 was raised before the handler chain, so its page had no X-Frame-Options
  // or CSP and /token answered it in the framework's shape instead of invalid_request.
  test("a 414 goes through the handler chain: a framed-proof page at /authorize, invalid_request at /token", async () => {
    const page = await raw(t.url, `GET /authorize?client_id=${"a".repeat(9000)} HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nConnection: close\r\n\r\n`);
    expect(page.status).toBe(414);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const token = await raw(t.url, form_post(`/token?x=${"a".repeat(9000)}`, "grant_type=x"));
    oauth_error(token, 414);
    expect(token.headers.get("cache-control")).toBe("no-store");
  });

  test.skipIf(RUNTIME !== "bun")("headers over 16 KiB, or too many header fields: 431 from Bun, and the server goes on (Bun only: its limits)", async () => {
    const huge = await raw(t.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(17 * 1024)}\r\nConnection: close\r\n\r\n`);
    expect(huge.status).toBe(431);
    const many = Array.from({ length: 300 }, (_, i) => `X-H${i}: v\r\n`).join("");
    expect((await raw(t.url, `GET /healthz HTTP/1.1\r\nHost: x\r\n${many}Connection: close\r\n\r\n`)).status).toBe(431);
    // A long URL past 16 KiB counts as header bytes too.
    expect((await raw(t.url, `GET /authorize?x=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).status).toBe(431);
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });

  test.skipIf(RUNTIME !== "deno")("headers over 64 KiB, or 300 header fields: 400 from Deno's server, and the server goes on (Deno only: its limits)", async () => {
    expect((await raw(t.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\nConnection: close\r\n\r\n`)).status).toBe(400);
    const many = Array.from({ length: 300 }, (_, i) => `X-H${i}: v\r\n`).join("");
    expect((await raw(t.url, `GET /healthz HTTP/1.1\r\nHost: x\r\n${many}Connection: close\r\n\r\n`)).status).toBe(400);
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });

  test("headers just under the limit are fine", async () => {
    expect((await raw(t.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(8 * 1024)}\r\nConnection: close\r\n\r\n`)).status).toBe(200);
  });
});

describe("parameter count", () => {
  const params = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=v`).join("&");

  test("more than 100 form parameters at /token: 400 invalid_request; 100 are read", async () => {
    expect(oauth_error(await raw(t.url, form_post("/token", params(101))), 400)).toContain("More than 100 parameters");
    const hundred = await raw(t.url, form_post("/token", params(100)));
    expect(hundred.body).not.toContain("More than 100 parameters");
  });

  test("more than 100 query parameters at /authorize: a 400 page, never a redirect", async () => {
    const answer = await raw(t.url, `GET /authorize?${params(101)}&client_id=test-app HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nConnection: close\r\n\r\n`);
    expect(answer.status).toBe(400);
    expect(answer.headers.get("location")).toBeUndefined();
    expect(answer.body).toContain("More than 100 parameters");
  });
});

describe("slow clients are cut off", () => {
  // Bun closes a connection whose request head has not arrived after ~10 s whatever the idle
  // timeout; a body must keep coming within IDP_IDLE_TIMEOUT_SECONDS (1 s here; Bun checks every
  // few seconds). The deadline below is generous: it proves the cut, not its speed.
  // Bun only: Deno.serve has neither timeout to set (README, "Running on Deno").
  test.skipIf(RUNTIME !== "bun")(
    "nothing sent, headers trickled, or a body trickled: the server closes the connection (Bun only: Deno.serve has no such timeouts)",
    async () => {
      const slow_head = Array.from({ length: 100 }, (_, i) => `X-Slow-${i}: v\r\n`);
      const slow_body = Array.from({ length: 200 }, () => "a");
      const [nothing, head, body] = await Promise.all([
        raw(t.url, "", { wait_ms: 25_000 }),
        raw(t.url, "GET /healthz HTTP/1.1\r\nHost: x\r\n", { trickle: slow_head, every_ms: 200, wait_ms: 25_000 }),
        raw(t.url, "POST /token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\n", {
          trickle: slow_body,
          every_ms: 200,
          wait_ms: 25_000,
        }),
      ]);
      expect(nothing).toMatchObject({ closed: true, status: null });
      expect(head).toMatchObject({ closed: true, status: null });
      expect(body.closed).toBe(true);
      // The trickled body never completed, so /token never answered it with a token.
      expect(body.text).not.toContain("access_token");
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    },
    40_000,
  );
});
