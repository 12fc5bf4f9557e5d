/**
 * Server-side request forgery (OWASP SSRF Prevention Cheat Sheet) through the URLs clients
 * register: the provider calls a client's `jwks_uri` (RFC 7591 §2) and `backchannel_logout_uri`
 * (OIDC Back-Channel Logout §2.5) only through oidc/outbound/fetch.ts. Unit tests of the address
 * classifier and the destination check; then real providers and a real local server (serve_fetch on
 * 127.0.0.1): refused by default with a generic error and the details in the log and the audit
 * log, served when the operator allow-lists 127.0.0.1, and no redirects, oversized bodies, slow
 * servers or (unless allowed) http.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { type FetchServer, serve_fetch } from "../helpers/serve_fetch.ts";
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import { ConfigError, load_config } from "../../src/app/config.ts";
import { JWT_BEARER } from "../../src/oidc/clients/assertion.ts";
import { JWKS_URI_UNUSABLE } from "../../src/oidc/clients/jwks.ts";
import { deliver_logout_token } from "../../src/oidc/logout/backchannel.ts";
import { OutboundError, check_destination, target_of, type Resolver } from "../../src/oidc/outbound/fetch.ts";
import { address_class, literal_host_problem } from "../../src/oidc/outbound/addresses.ts";
import type { LogLine } from "../../src/oidc/provider.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";

describe("address classes", () => {
  const cases: [string, string | null][] = [
    // loopback
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    // private (RFC 1918)
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    // link-local, the cloud metadata address included
    ["169.254.169.254", "link_local"],
    ["fe80::1", "link_local"],
    ["fe80::1%eth0", "link_local"],
    ["febf::1", "link_local"],
    // unique local (fc00::/7)
    ["fc00::1", "unique_local"],
    ["fd12:3456:789a::1", "unique_local"],
    // multicast
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["ff02::1", "multicast"],
    // unspecified
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    // CGNAT (RFC 6598)
    ["100.64.0.1", "shared"],
    ["100.127.255.255", "shared"],
    // reserved and broadcast
    ["255.255.255.255", "reserved"],
    ["198.18.0.1", "reserved"],
    // IPv4-mapped IPv6 (RFC 4291 §2.5.5.2), dotted and hex, and other IPv4-embedding forms
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["[::ffff:169.254.169.254]", "link_local"],
    ["::ffff:10.1.2.3", "private"],
    ["::ffff:0.0.0.0", "unspecified"],
    ["64:ff9b::a9fe:a9fe", "link_local"], // NAT64 of 169.254.169.254
    ["2002:7f00:1::", "loopback"], // 6to4 of 127.0.0.1
    ["::127.0.0.1", "loopback"], // IPv4-compatible
    // public: just outside the ranges, and well-known public addresses
    ["172.32.0.1", null],
    ["172.15.255.255", null],
    ["100.128.0.1", null],
    ["100.63.255.255", null],
    ["169.253.255.255", null],
    ["11.0.0.1", null],
    ["8.8.8.8", null],
    ["::ffff:8.8.8.8", null],
    ["2606:4700:4700::1111", null],
    ["2001:4860:4860::8888", null],
    ["fec0::1", "private"],
    ["fbff::1", null],
    // not an address at all
    ["example.com", "invalid"],
    ["1.2.3", "invalid"],
  ];
  test("loopback, private, link-local, unique-local, multicast, unspecified, CGNAT and IPv4-mapped forms are refused; public addresses are not", () => {
    const wrong = cases.filter(([ip, expected]) => address_class(ip) !== expected).map(([ip, expected]) => `${ip}: ${address_class(ip)} (expected ${expected})`);
    expect(wrong).toEqual([]);
  });

  test("a name is refused when ANY of its addresses is not public, unless the allow-list covers it", async () => {
    const resolver =
      (addresses: string[]): Resolver =>
      async () =>
        addresses;
    const url = new URL("https://jwks.rp.test/keys");
    expect(await check_destination(url, [], resolver(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]))).toHaveLength(2);
    for (const mixed of [
      ["93.184.215.14", "10.0.0.5"],
      ["::ffff:127.0.0.1", "93.184.215.14"],
      ["93.184.215.14", "fd00::1"],
    ]) {
      const refused = await check_destination(url, [], resolver(mixed)).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OutboundError);
      expect((refused as OutboundError).kind).toBe("refused");
      expect((refused as OutboundError).details.address).toBe(mixed.find((a) => address_class(a) !== null)!);
    }
    // The allow-list: a range holding the address, or the host name itself (no resolution then).
    expect(await check_destination(url, ["10.0.0.0/8"], resolver(["93.184.215.14", "10.0.0.5"]))).toEqual(["93.184.215.14", "10.0.0.5"]);
    expect(await check_destination(url, ["10.0.0.0/8"], resolver(["10.0.0.5", "192.168.0.5"])).catch((e: unknown) => e)).toBeInstanceOf(OutboundError);
    expect(await check_destination(url, ["jwks.rp.test"], resolver(["10.0.0.5"]))).toEqual([]);
    expect(await check_destination(url, ["fd00::/8"], resolver(["fd00::7"]))).toEqual(["fd00::7"]);
    // Literal addresses are checked as they are, without DNS.
    const never: Resolver = async () => {
      throw new Error("no DNS for a literal");
    };
    expect(await check_destination(new URL("https://169.254.169.254/latest/meta-data/"), [], never).catch((e: unknown) => (e as OutboundError).reason)).toContain("link_local");
    expect(await check_destination(new URL("https://[::ffff:a9fe:a9fe]/"), [], never).catch((e: unknown) => (e as OutboundError).reason)).toContain("link_local");
    expect(await check_destination(new URL("https://127.0.0.1:8443/"), ["127.0.0.1/32"], never)).toEqual(["127.0.0.1"]);
    // A name that does not resolve is a failure, not a refusal.
    const nxdomain: Resolver = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    expect(await check_destination(url, [], nxdomain).catch((e: unknown) => [(e as OutboundError).kind, (e as OutboundError).reason])).toEqual([
      "failed",
      "the host name did not resolve (ENOTFOUND)",
    ]);
  });

  test("localhost, resolved by the system, is refused; allow-listing both loopback ranges lets it through", async () => {
    const refused = await check_destination(new URL("https://localhost:8443/jwks"), []).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OutboundError);
    expect((refused as OutboundError).reason).toContain("loopback");
    const addresses = await check_destination(new URL("https://localhost:8443/jwks"), ["127.0.0.0/8", "::1/128"]);
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(address_class(address)).toBe("loopback");
  });

  test("https only unless http is allowed; no credentials in the URL", () => {
    expect(() => target_of("http://rp.example.com/jwks", { allow_http: false })).toThrow("scheme http: is not allowed");
    expect(target_of("http://rp.example.com/jwks", { allow_http: true }).host).toBe("rp.example.com");
    expect(() => target_of("ftp://rp.example.com/jwks", { allow_http: true })).toThrow("scheme ftp:");
    expect(() => target_of("https://user:pw@rp.example.com/jwks", { allow_http: false })).toThrow("credentials");
  });

  test("literal non-public hosts are known before any request; names are not", () => {
    expect(literal_host_problem("169.254.169.254", [])).toContain("link_local");
    expect(literal_host_problem("[::ffff:127.0.0.1]", [])).toContain("loopback");
    expect(literal_host_problem("[fd00::1]", [])).toContain("unique_local");
    expect(literal_host_problem("10.1.2.3", ["10.0.0.0/8"])).toBeNull();
    expect(literal_host_problem("93.184.215.14", [])).toBeNull();
    expect(literal_host_problem("localhost", [])).toBeNull();
  });

  test("settings: IDP_OUTBOUND_ALLOW takes host names, addresses and CIDR ranges; safe defaults", () => {
    const defaults = load_config({}).outbound;
    expect(defaults).toEqual({ allow_http: false, allow: [], connect_timeout_ms: 3000, timeout_ms: 5000, max_bytes: 512 * 1024 });
    const set = load_config({
      IDP_OUTBOUND_ALLOW: "idp.intranet, 10.0.0.0/8,127.0.0.1/32,fd00::/8,::1",
      IDP_OUTBOUND_ALLOW_HTTP: "true",
      IDP_OUTBOUND_MAX_BYTES: "65536",
    }).outbound;
    expect(set).toMatchObject({ allow_http: true, allow: ["idp.intranet", "10.0.0.0/8", "127.0.0.1/32", "fd00::/8", "::1"], max_bytes: 65536 });
    for (const bad of ["10.0.0.0/33", "example.com/8", "http://idp.intranet", "fd00::/129", "a b"]) {
      expect(() => load_config({ IDP_OUTBOUND_ALLOW: bad })).toThrow(ConfigError);
    }
    expect(() => load_config({ IDP_OUTBOUND_ALLOW: "10.0.0.0/33" })).toThrow("IDP_OUTBOUND_ALLOW");
  });
});

// ---------------------------------------------------------------------------------------------

type Key = { privateKey: CryptoKey; jwk: JWK; kid: string };

let key: Key;
let server: FetchServer;
const hits: string[] = [];
const pending: (() => void)[] = [];

type Run = { t: TestProvider; lines: LogLine[] };
const runs: Run[] = [];

async function provider(config: Record<string, unknown>): Promise<Run> {
  const lines: LogLine[] = [];
  const t = await start_provider({ config: { registration: "open", ...config }, log: (line) => void lines.push(line) });
  const run = { t, lines };
  runs.push(run);
  return run;
}

/** Default outbound settings: https only, public addresses only. */
let strict: Run;
/** http allowed, but no address allow-listed. */
let http_only: Run;
/** The operator allow-lists 127.0.0.1 (and http), with small limits. */
let allowed: Run;
/** 127.0.0.1 allow-listed, http not allowed. */
let https_allowed: Run;

const local = (path: string, scheme = "http") => `${scheme}://127.0.0.1:${server.port}${path}`;
const unique = (path: string) => `${path}${path.includes("?") ? "&" : "?"}c=${crypto.randomUUID()}`;
const hits_of = (path: string) => hits.filter((hit) => hit.startsWith(path)).length;

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  const kid = crypto.randomUUID();
  key = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: "ES256", use: "sig" }, kid };
  server = await serve_fetch(async (request) => {
    const url = new URL(request.url);
    hits.push(url.pathname + url.search);
    switch (url.pathname) {
      case "/jwks":
        return Response.json({ keys: [key.jwk] });
      case "/to-metadata":
        return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
      case "/to-local":
        return new Response(null, { status: 307, headers: { location: local("/jwks?from=redirect") } });
      case "/huge-declared":
        return new Response(JSON.stringify({ keys: [key.jwk], pad: "x".repeat(10_000) }), { headers: { "content-type": "application/json" } });
      case "/huge-streamed": {
        let sent = 0;
        const chunk = new TextEncoder().encode("x".repeat(4096));
        return new Response(
          new ReadableStream({
            // One chunk a turn of the event loop: a body still streaming is sent without a
            // Content-Length (tests/helpers/serve_fetch.ts).
            async pull(controller) {
              await new Promise((resolve) => setTimeout(resolve, 1));
              if (sent++ < 5) controller.enqueue(chunk);
              else controller.close();
            },
          }),
          { headers: { "content-type": "application/json" } },
        );
      }
      case "/slow-headers":
        await new Promise<void>((resolve) => {
          pending.push(resolve);
          setTimeout(resolve, 3000);
        });
        return Response.json({ keys: [key.jwk] });
      case "/slow-body":
        return new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"keys":['));
              pending.push(() => {
                try {
                  controller.close();
                } catch {
                  // already cancelled by the provider's timeout
                }
              });
            },
          }),
          { headers: { "content-type": "application/json" } },
        );
      case "/bc":
        await request.text();
        return new Response(null, { status: 200 });
      default:
        return new Response("not found", { status: 404 });
    }
  });
  [strict, http_only, allowed, https_allowed] = await Promise.all([
    provider({}),
    provider({ outbound: { allow_http: true } }),
    provider({ outbound: { allow_http: true, allow: ["127.0.0.1/32"], max_bytes: 4096, connect_timeout_ms: 300, timeout_ms: 800 } }),
    provider({ outbound: { allow: ["127.0.0.1/32"] } }),
  ]);
});

afterAll(async () => {
  for (const release of pending) release();
  await server.stop();
  await Promise.all(runs.map((run) => run.t.stop()));
});

/** A private_key_jwt client whose keys are at `jwks_uri`, and one authentication attempt at /introspect. */
async function authenticate(run: Run, jwks_uri: string): Promise<{ client_id: string; status: number; body: Record<string, unknown>; ms: number }> {
  const { t } = run;
  const { client } = await t.add_client({ token_endpoint_auth_method: "private_key_jwt", jwks_uri });
  const now = t.clock.now();
  const assertion = await new SignJWT({ iss: client.client_id, sub: client.client_id, aud: t.issuer, iat: now, exp: now + 60, jti: crypto.randomUUID() })
    .setProtectedHeader({ alg: "ES256", kid: key.kid })
    .sign(key.privateKey);
  const started = performance.now();
  const response = await fetch(`${t.url}/introspect`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: "A".repeat(43), client_assertion_type: JWT_BEARER, client_assertion: assertion }).toString(),
  });
  const ms = performance.now() - started;
  const body = (await response.json()) as Record<string, unknown>;
  return { client_id: client.client_id, status: response.status, body, ms };
}

/** Refused with invalid_client and the generic description: no status, address, port or reason. */
function expect_generic_refusal(result: { status: number; body: Record<string, unknown> }): void {
  expect(result.status).toBe(401);
  expect(result.body).toEqual({ error: "invalid_client", error_description: JWKS_URI_UNUSABLE });
  const text = JSON.stringify(result.body);
  for (const leak of ["127.0.0.1", "169.254", String(server.port), "302", "307", "404", "loopback", "timeout", "bytes", "http:"]) expect(text).not.toContain(leak);
}

function outbound_lines(run: Run, client_id: string): LogLine[] {
  return run.lines.filter((line) => typeof line.msg === "string" && line.msg.startsWith("outbound request") && line.client_id === client_id);
}

describe("jwks_uri", () => {
  test("by default a jwks_uri on a loopback address is never fetched: a generic invalid_client, the details in the log and the audit log", async () => {
    // http allowed, so the refusal is about the address: 127.0.0.1 literal.
    const path = unique("/jwks");
    const refused = await authenticate(http_only, local(path));
    expect_generic_refusal(refused);
    expect(hits_of(path)).toBe(0);
    const [line] = outbound_lines(http_only, refused.client_id);
    expect(line).toMatchObject({ level: "warn", msg: "outbound request refused", purpose: "jwks_uri", host: `127.0.0.1:${server.port}`, address: "127.0.0.1" });
    expect(String(line!.reason)).toContain("loopback");
    const events = await http_only.t.store.list_audit_events({ type: "outbound_refused", client_id: refused.client_id });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ outcome: "failure", client_id: refused.client_id, details: { purpose: "jwks_uri", host: `127.0.0.1:${server.port}`, address: "127.0.0.1" } });

    // https changes nothing: refused before any connection, by the address; a name that resolves
    // to loopback (localhost) too.
    for (const uri of [local(unique("/jwks"), "https"), `https://localhost:${server.port}${unique("/jwks")}`, `https://[::ffff:127.0.0.1]:${server.port}/jwks`]) {
      const result = await authenticate(strict, uri);
      expect_generic_refusal(result);
      const [refusal] = outbound_lines(strict, result.client_id);
      expect(refusal).toMatchObject({ msg: "outbound request refused", purpose: "jwks_uri" });
      expect(String(refusal!.reason)).toContain("loopback");
    }
  });

  test("served when the operator allow-lists 127.0.0.1 (IDP_OUTBOUND_ALLOW)", async () => {
    const path = unique("/jwks");
    const result = await authenticate(allowed, local(path));
    expect(result.status).toBe(200);
    expect(hits_of(path)).toBe(1);
    expect(outbound_lines(allowed, result.client_id)).toEqual([]);
  });

  test("a redirect is refused and not followed: to the metadata address, or even to an allowed one", async () => {
    for (const path of ["/to-metadata", "/to-local"]) {
      const uri = local(unique(path));
      const result = await authenticate(allowed, uri);
      expect_generic_refusal(result);
      const [line] = outbound_lines(allowed, result.client_id);
      expect(line).toMatchObject({ msg: "outbound request refused", address: "127.0.0.1" });
      expect(String(line!.reason)).toContain("redirect (not followed)");
      const [event] = await allowed.t.store.list_audit_events({ type: "outbound_refused", client_id: result.client_id });
      expect(event?.details).toMatchObject({ purpose: "jwks_uri", status: path === "/to-metadata" ? 302 : 307 });
    }
    expect(hits.filter((hit) => hit.includes("from=redirect"))).toEqual([]);
  });

  test("an oversized JWK Set is refused, whether its length is declared or streamed", async () => {
    for (const path of ["/huge-declared", "/huge-streamed"]) {
      const result = await authenticate(allowed, local(unique(path)));
      expect_generic_refusal(result);
      const [line] = outbound_lines(allowed, result.client_id);
      expect(line).toMatchObject({ msg: "outbound request failed", status: 200 });
      expect(String(line!.reason)).toContain("larger than 4096 bytes");
    }
  });

  test("a slow server times out: no headers in time, or a body that never ends", async () => {
    const headers = await authenticate(allowed, local(unique("/slow-headers")));
    expect_generic_refusal(headers);
    expect(headers.ms).toBeLessThan(2000);
    expect(outbound_lines(allowed, headers.client_id)[0]).toMatchObject({ msg: "outbound request failed", reason: "no response headers within 300 ms" });

    const body = await authenticate(allowed, local(unique("/slow-body")));
    expect_generic_refusal(body);
    expect(body.ms).toBeLessThan(2000);
    expect(outbound_lines(allowed, body.client_id)[0]).toMatchObject({ msg: "outbound request failed", reason: "no complete answer within 800 ms" });
  });

  test("http is refused unless the operator allows it (IDP_OUTBOUND_ALLOW_HTTP), even to an allow-listed address", async () => {
    const path = unique("/jwks");
    const result = await authenticate(https_allowed, local(path));
    expect_generic_refusal(result);
    expect(hits_of(path)).toBe(0);
    expect(outbound_lines(https_allowed, result.client_id)[0]).toMatchObject({
      msg: "outbound request refused",
      reason: "scheme http: is not allowed (outbound.allow_http is off)",
    });
    // The same URI with http allowed: served (the allowed provider above).
    expect((await authenticate(allowed, local(unique("/jwks")))).status).toBe(200);
  });
});

describe("backchannel_logout_uri", () => {
  test("a logout token is never POSTed to a loopback address unless allow-listed", async () => {
    const path = unique("/bc");
    const { client } = await http_only.t.add_client({ backchannel_logout_uri: local(path) });
    const outcome = await deliver_logout_token(http_only.t.provider, client, { user_id: http_only.t.user.id, sid: "s" });
    expect(outcome.ok).toBe(false);
    expect(outcome.reason).toContain("loopback");
    expect(hits_of(path)).toBe(0);
    const events = await http_only.t.store.list_audit_events({ type: "outbound_refused", client_id: client.client_id });
    expect(events[0]?.details).toMatchObject({ purpose: "backchannel_logout_uri", address: "127.0.0.1" });

    const delivered = unique("/bc");
    const { client: listed } = await allowed.t.add_client({ backchannel_logout_uri: local(delivered) });
    expect(await deliver_logout_token(allowed.t.provider, listed, { user_id: allowed.t.user.id, sid: "s" })).toEqual({ client_id: listed.client_id, ok: true });
    expect(hits_of(delivered)).toBe(1);
  });
});

describe("registration", () => {
  const register = (run: Run, metadata: Record<string, unknown>) =>
    fetch(`${run.t.url}/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ redirect_uris: [REDIRECT_URI], ...metadata }) });

  test("a jwks_uri or backchannel_logout_uri on a literal non-public address is invalid_client_metadata", async () => {
    for (const metadata of [
      { jwks_uri: "https://169.254.169.254/latest/meta-data/" },
      { jwks_uri: "https://10.1.2.3/jwks" },
      { jwks_uri: "https://[fd00::1]/jwks" },
      { backchannel_logout_uri: "https://[::ffff:127.0.0.1]/bc" },
      { backchannel_logout_uri: "https://192.168.0.10/bc" },
    ]) {
      const response = await register(strict, metadata);
      const body = (await response.json()) as { error: string; error_description: string };
      expect({ status: response.status, error: body.error }).toEqual({ status: 400, error: "invalid_client_metadata" });
      expect(body.error_description).toContain(Object.keys(metadata)[0]!);
    }
    // Names are checked when fetched (DNS as it is then); allow-listed addresses are accepted.
    expect((await register(strict, { jwks_uri: "https://rp.example.com/jwks.json" })).status).toBe(201);
    expect((await register(allowed, { jwks_uri: "https://127.0.0.1/jwks.json" })).status).toBe(201);
  });
});
