/**
 * Malformed requests over a raw socket (what fetch will not send): invalid UTF-8, overlong
 * percent-encodings (%C0%AF, RFC 3629 §10), null bytes, duplicate parameters (RFC 6749 §3.1),
 * JSON bombs, wrong content types, broken request framing (RFC 9112 §6.3: Content-Length with
 * Transfer-Encoding), odd methods and request targets. Each gets a 4xx with the right shape — a
 * protocol error at the protocol endpoints, a page at /authorize — never a 5xx, and the server
 * answers normally afterwards.
 */
import { afterAll, beforeAll, describe, expect, RUNTIME, test } from "../helpers/test_api.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { PROTOCOL_ERRORS } from "./helpers.ts";
import { bytes, raw } from "./raw.ts";

let t: TestProvider;
beforeAll(async () => {
  t = await start_provider({ config: { registration: "open" } });
});
afterAll(async () => {
  // Whatever came before, the server still serves.
  expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  await t.stop();
});

const CLOSE = "Connection: close\r\n\r\n";
const get = (target: (string | number[])[], accept = "text/html") => bytes("GET ", ...target, ` HTTP/1.1\r\nHost: x\r\nAccept: ${accept}\r\n${CLOSE}`);
function post(path: string, type: string | null, body: (string | number[])[], headers = ""): Uint8Array {
  const payload = bytes(...body);
  return bytes(`POST ${path} HTTP/1.1\r\nHost: x\r\n${type === null ? "" : `Content-Type: ${type}\r\n`}${headers}Content-Length: ${payload.length}\r\n${CLOSE}`, [...payload]);
}
const FORM = "application/x-www-form-urlencoded";

/**
 * What an answer must be: a protocol error (JSON, known code), a page (HTML), or the server's
 * bare refusal of a broken request (null: no HTTP/1.1 status line at all).
 */
type Expect = { status: number; error?: string } | { status: number; page: true } | { status: number | null; bare: true };

const CASES: [string, Uint8Array | string, Expect][] = [
  // Invalid UTF-8 and overlong encodings
  ["raw 0xFF 0xC0 0xAF bytes in an /authorize query", get(["/authorize?client_id=test-app&redirect_uri=", [0xff, 0xc0, 0xaf]]), { status: 400, page: true }],
  ["overlong %C0%AF in client_id", get(["/authorize?client_id=%C0%AFtest-app"]), { status: 400, page: true }],
  ["%FF in redirect_uri", get(["/authorize?client_id=test-app&redirect_uri=https://rp.example.com/callback%FF"]), { status: 400, page: true }],
  ["overlong %C0%AF in a path parameter", get(["/interaction/%C0%AF..%C0%AF/login"]), { status: 400, page: true }],
  ["raw invalid UTF-8 in a /token form body", post("/token", FORM, ["grant_type=client_credentials&client_id=", [0xff, 0xfe]]), { status: 400, error: "invalid_request" }],
  ["raw invalid UTF-8 in a /register JSON body", post("/register", "application/json", ['{"client_name":"', [0xc0, 0xaf], '"}']), { status: 400, error: "invalid_request" }],
  [
    "%C0%AF in the code at /token",
    post("/token", FORM, ["grant_type=authorization_code&code=%C0%AF&redirect_uri=x"], `Authorization: Basic ${btoa("test-app:x")}\r\n`),
    { status: 401, error: "invalid_client" },
  ],
  [
    "invalid UTF-8 inside Basic credentials",
    post("/token", FORM, ["grant_type=client_credentials"], `Authorization: Basic ${Buffer.from([0xff, 0x3a, 0xfe]).toString("base64")}\r\n`),
    { status: 401, error: "invalid_client" },
  ],
  [
    "malformed percent-encoding inside Basic credentials",
    post("/token", FORM, ["grant_type=client_credentials"], `Authorization: Basic ${btoa("%zz:x")}\r\n`),
    { status: 401, error: "invalid_client" },
  ],
  [
    "invalid UTF-8 in a Bearer token",
    bytes("GET /userinfo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ", [0xff, 0xfe], `\r\n${CLOSE}`),
    { status: 400, error: "invalid_request" },
  ],
  // Null bytes
  ["%00 in client_id", get(["/authorize?client_id=test-app%00&redirect_uri=https://rp.example.com/callback"]), { status: 400, page: true }],
  ["%00 in a /token form", post("/token", FORM, ["grant_type=client_credentials%00&client_id=test-app%00"]), { status: 401, error: "invalid_client" }],
  ["a raw NUL in the request line", "GET /authorize?client_id=a\0b HTTP/1.1\r\nHost: x\r\n" + CLOSE, { status: 505, bare: true }],
  ["a raw NUL in a header value", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n${CLOSE}`, { status: 400, bare: true }],
  // Duplicate parameters (RFC 6749 §3.1: "MUST NOT be included more than once")
  ["client_id twice at /authorize", get(["/authorize?client_id=test-app&client_id=test-app&redirect_uri=https://rp.example.com/callback"]), { status: 400, page: true }],
  [
    "grant_type twice at /token",
    post("/token", FORM, ["grant_type=client_credentials&grant_type=client_credentials"], `Authorization: Basic ${btoa("test-app:x")}\r\n`),
    { status: 400, error: "invalid_request" },
  ],
  ["token twice at /revoke", post("/revoke", FORM, ["token=a&token=b&client_id=test-app"]), { status: 400, error: "invalid_request" }],
  // JSON bombs within the body limit, and huge arrays
  [
    "deeply nested JSON at /register (30 000 levels)",
    post("/register", "application/json", [`{"redirect_uris":${"[".repeat(30_000)}${"]".repeat(30_000)}}`]),
    { status: 400, error: "invalid_redirect_uri" },
  ],
  [
    "an array of 2 000 redirect URIs",
    post("/register", "application/json", [JSON.stringify({ redirect_uris: Array.from({ length: 2_000 }, (_, i) => `https://rp.test/${i}`) })]),
    { status: 400, error: "invalid_redirect_uri" },
  ],
  [
    "4 000 unknown members (ignored, RFC 7591 §2)",
    post("/register", "application/json", [
      JSON.stringify({ redirect_uris: ["https://rp.test/cb"], ...Object.fromEntries(Array.from({ length: 4_000 }, (_, i) => [`m${i}`, i])) }),
    ]),
    { status: 201, bare: true },
  ],
  ["malformed JSON", post("/register", "application/json", ['{"redirect_uris": [']), { status: 400, error: "invalid_request" }],
  // Wrong content types
  ["JSON at /token", post("/token", "application/json", ['{"grant_type":"client_credentials"}']), { status: 400, error: "invalid_request" }],
  ["text/plain at /token", post("/token", "text/plain", ["grant_type=client_credentials"]), { status: 415, error: "invalid_request" }],
  ["multipart at /revoke", post("/revoke", "multipart/form-data; boundary=x", ["--x--"]), { status: 415, error: "invalid_request" }],
  ["a body without Content-Type at /introspect", post("/introspect", null, ["token=x"]), { status: 415, error: "invalid_request" }],
  ["a form at /register", post("/register", FORM, ["redirect_uris=https://rp.test/cb"]), { status: 400, error: "invalid_client_metadata" }],
  ["XML at /userinfo", post("/userinfo", "application/xml", ["<x/>"]), { status: 415, error: "invalid_request" }],
  // Framing, methods and request targets
  [
    "Content-Length with Transfer-Encoding (request smuggling)",
    `POST /token HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n${CLOSE}0\r\n\r\n`,
    { status: 400, bare: true },
  ],
  ["two Content-Length headers", `POST /token HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n${CLOSE}ab`, { status: 400, bare: true }],
  ["TRACE /token", `TRACE /token HTTP/1.1\r\nHost: x\r\n${CLOSE}`, { status: 405, error: "invalid_request" }],
  ["bare LF line endings", "GET /healthz HTTP/1.1\nHost: x\n\n", { status: 505, bare: true }],
  ["an HTTP/2 preface on HTTP/1.1", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", { status: 400, bare: true }],
  ["a TLS ClientHello on plain HTTP", "\x16\x03\x01\x00\x05hello\r\n\r\n", { status: 400, bare: true }],
  ["traversal in a static path", get(["/static/..%2f..%2fpackage.json"], "application/json"), { status: 404, bare: true }],
];

/**
 * Where Deno's HTTP server (hyper) parses the request otherwise than Bun's: what reaches the app
 * is answered alike, but these never reach it, or are read otherwise.
 */
const ON_DENO: Record<string, Expect> = {
  // A request target that is not ASCII is refused before the app sees it.
  "raw 0xFF 0xC0 0xAF bytes in an /authorize query": { status: 400, bare: true },
  "a raw NUL in the request line": { status: 400, bare: true },
  // RFC 9112 §2.2: a recipient MAY take a bare LF for a line end; hyper does.
  "bare LF line endings": { status: 200, bare: true },
  // The preface of HTTP/2 with prior knowledge (RFC 9113 §3.3), which Deno.serve speaks: the answer is HTTP/2 frames.
  "an HTTP/2 preface on HTTP/1.1": { status: null, bare: true },
};

describe("malformed requests: a 4xx of the right shape, never a 5xx", () => {
  for (const [name, payload, on_bun] of CASES) {
    const expected = RUNTIME === "deno" ? (ON_DENO[name] ?? on_bun) : on_bun;
    test(name, async () => {
      const answer = await raw(t.url, payload);
      expect(answer.status).toBe(expected.status);
      if ("error" in expected) {
        expect(answer.headers.get("content-type")).toStartWith("application/json");
        const body = JSON.parse(answer.body) as { error: string; error_description: unknown };
        expect(PROTOCOL_ERRORS.has(body.error)).toBe(true);
        expect(body.error).toBe(expected.error!);
        expect(typeof body.error_description).toBe("string");
      }
      if ("page" in expected) {
        expect(answer.headers.get("content-type")).toStartWith("text/html");
        expect(answer.headers.get("location")).toBeUndefined();
        expect(answer.headers.get("x-frame-options")).toBe("DENY");
      }
      expect(answer.text).not.toMatch(/\n\s+at /);
    });
  }
});

test("an unknown method is refused without an answer, and the server goes on", async () => {
  const answer = await raw(t.url, `FOO /token HTTP/1.1\r\nHost: x\r\n${CLOSE}`);
  expect(answer.status === null || (answer.status >= 400 && answer.status < 500)).toBe(true);
  expect((await fetch(`${t.url}/.well-known/openid-configuration`)).status).toBe(200);
});

test("scope twice at /authorize: invalid_request at the registered redirect URI (RFC 6749 §3.1)", async () => {
  const answer = await raw(t.url, get(["/authorize?client_id=test-app&redirect_uri=https://rp.example.com/callback&response_type=code&scope=openid&scope=email&state=s"]));
  expect(answer.status).toBe(302);
  const location = new URL(answer.headers.get("location")!);
  expect(location.searchParams.get("error")).toBe("invalid_request");
  expect(location.searchParams.get("iss")).toBe(t.issuer);
});
