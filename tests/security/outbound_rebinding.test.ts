/**
 * DNS rebinding through the outbound fence (oidc/outbound/fetch.ts, pinned.ts): the host name is
 * resolved once, every address checked, and the connection goes to a checked address, with the
 * name kept for TLS (SNI, the certificate) and the Host header. The resolver here answers the
 * check with an allowed address and any later question with another one, where a second server
 * listens: the request reaches the first, the second never sees a request, and the resolver is
 * asked once.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutboundError, outbound_fetch, type Resolver } from "../../src/oidc/outbound/fetch.ts";
import type { LogLine } from "../../src/oidc/provider.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";

type Hit = { server: string; host: string | null; path: string };
const hits: Hit[] = [];
const servers: FetchServer[] = [];
/** A server that records who was asked what; its port. */
async function listen(name: string, hostname: string, port: number, tls?: { cert: string; key: string }): Promise<number> {
  const server = await serve_fetch(
    (request) => {
      hits.push({ server: name, host: request.headers.get("host"), path: new URL(request.url).pathname });
      return Response.json({ server: name });
    },
    { port, hostname, ...(tls ? { tls } : {}) },
  );
  servers.push(server);
  return server.port;
}

/** The first question gets `first`, every later one `then`; `asked` counts them. */
function rebinding(first: string, then: string): Resolver & { asked: () => number } {
  let count = 0;
  const resolve: Resolver = async () => (++count === 1 ? [first] : [then]);
  return Object.assign(resolve, { asked: () => count });
}

let t: TestProvider;
const lines: LogLine[] = [];
let port: number;
/** Whether 127.0.0.2 could be bound (Linux routes all of 127/8 to lo; macOS does not by default). */
let second_server = false;
const dir = mkdtempSync(join(tmpdir(), "idp-rebinding-"));

beforeAll(async () => {
  port = await listen("checked", "127.0.0.1", 0);
  try {
    await listen("rebound", "127.0.0.2", port);
    second_server = true;
  } catch {
    console.warn("127.0.0.2 cannot be bound here: the rebinding tests check the resolver is asked once, without a second server");
  }
  t = await start_provider({
    config: { outbound: { allow_http: true, allow: ["127.0.0.1/32"], connect_timeout_ms: 500, timeout_ms: 1000 } },
    log: (line) => void lines.push(line),
  });
});

afterAll(async () => {
  for (const server of servers) await server.stop();
  await t.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("DNS rebinding", () => {
  test("the request connects to the address that was checked, never to a second answer; the Host header keeps the name", async () => {
    const resolve = rebinding("127.0.0.1", "127.0.0.2");
    const answer = await outbound_fetch(t.provider, `http://rebind.test:${port}/jwks`, { purpose: "jwks_uri", resolve });
    expect(answer.status).toBe(200);
    expect(JSON.parse(new TextDecoder().decode(answer.body))).toEqual({ server: "checked" });
    expect(resolve.asked()).toBe(1);
    expect(hits.filter((hit) => hit.path === "/jwks")).toEqual([{ server: "checked", host: `rebind.test:${port}`, path: "/jwks" }]);
    if (second_server) expect(hits.filter((hit) => hit.server === "rebound")).toEqual([]);
  });

  test("a public answer for the check and a loopback one after it: the loopback server is never reached", async () => {
    const resolve = rebinding("192.0.2.10", "127.0.0.1");
    const failure = await outbound_fetch(t.provider, `http://rebind.test:${port}/to-loopback`, { purpose: "jwks_uri", resolve }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OutboundError);
    expect((failure as OutboundError).details.address).toBe("192.0.2.10");
    expect(resolve.asked()).toBe(1);
    expect(hits.filter((hit) => hit.path === "/to-loopback")).toEqual([]);
  });
});

/** A self-signed certificate for rebind.test, made by the openssl command; null when there is none. */
function certificate(): { cert: string; key: string } | null {
  const made = spawnSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=rebind.test",
    "-addext",
    "subjectAltName=DNS:rebind.test",
    "-keyout",
    join(dir, "key.pem"),
    "-out",
    join(dir, "cert.pem"),
  ]);
  if (made.error !== undefined || made.status !== 0) return null;
  return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") };
}

describe("TLS to a pinned address", () => {
  test("SNI and the certificate check use the URL's name, not the address connected to", async () => {
    const tls = certificate();
    if (tls === null) return void console.warn("openssl not installed: skipping the TLS pinning test");
    const tls_port = await listen("tls", "127.0.0.1", 0, tls);
    const https = await start_provider({ config: { outbound: { allow: ["127.0.0.1/32"], connect_timeout_ms: 500, timeout_ms: 1000 } } });
    try {
      const resolve = rebinding("127.0.0.1", "127.0.0.2");
      const answer = await outbound_fetch(https.provider, `https://rebind.test:${tls_port}/keys`, { purpose: "jwks_uri", resolve, ca: tls.cert });
      expect(JSON.parse(new TextDecoder().decode(answer.body))).toEqual({ server: "tls" });
      expect(hits.filter((hit) => hit.path === "/keys")).toEqual([{ server: "tls", host: `rebind.test:${tls_port}`, path: "/keys" }]);
      expect(resolve.asked()).toBe(1);
      // The same address under another name: the certificate does not name it, so no exchange.
      const other = await outbound_fetch(https.provider, `https://other.test:${tls_port}/other`, { purpose: "jwks_uri", resolve: async () => ["127.0.0.1"], ca: tls.cert }).catch(
        (error: unknown) => error,
      );
      expect(other).toBeInstanceOf(OutboundError);
      expect((other as OutboundError).reason).toContain("no connection");
      expect(hits.filter((hit) => hit.path === "/other")).toEqual([]);
    } finally {
      await https.stop();
    }
  });
});
