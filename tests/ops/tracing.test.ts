/**
 * OpenTelemetry traces (README, "Tracing"), exported to a real OTLP/HTTP receiver
 * (tests/helpers/otlp.ts) that decodes what arrives: a span per request with its route, status
 * and client, the caller's `traceparent` as its parent, child spans for the store, password
 * hashing, signing and an outbound call (which carries our `traceparent` on), log lines with the
 * trace's ids, and not one secret of the flow anywhere in what was exported. Off without an
 * endpoint, and then not even loaded.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { load_config } from "../../src/app/config.ts";
import { traces_url } from "../../src/app/tracing/index.ts";
import { JWT_BEARER } from "../../src/oidc/clients/assertion.ts";
import { current_tracing } from "../../src/oidc/ops/tracing.ts";
import { basic, get_code } from "../helpers/flow.ts";
import { start_otlp_receiver, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp.ts";
import { REDIRECT_URI, start_provider, type TestProvider } from "../helpers/provider.ts";
import { sandbox } from "../cli/helpers.ts";
import { serve_fetch, type FetchServer } from "../helpers/serve_fetch.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const OUTBOUND_TRACE = "0af7651916cd43dd8448eb211c80319c";

let receiver: OtlpReceiver;
let jwks_server: FetchServer;
/** The traceparent headers the client's jwks_uri was fetched with. */
const jwks_traceparents: (string | null)[] = [];
let served_jwks: unknown = { keys: [] };

let spans: ReceivedSpan[];
let raw: string;
const logs: Record<string, unknown>[] = [];
/** Every secret value the flow handled: none may appear in what was exported. */
const secrets: string[] = [];
let client_id: string;

beforeAll(async () => {
  receiver = await start_otlp_receiver();
  jwks_server = await serve_fetch((request) => {
    jwks_traceparents.push(request.headers.get("traceparent"));
    return Response.json(served_jwks);
  });
  const t: TestProvider = await start_provider({
    config: {
      tracing: { endpoint: receiver.url, service_name: "idp-under-test" },
      log_requests: true,
      outbound: { allow_http: true, allow: ["127.0.0.1/32"] },
    },
    log: (line) => void logs.push(line),
  });
  client_id = t.client.client_id;
  try {
    expect(current_tracing()).not.toBeNull();
    // A sign-in through the pages (the password step hashes), then /token with a caller's traceparent.
    const { code, pkce, browser } = await get_code(t);
    const token = await fetch(`${t.url}/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: basic(t.client.client_id, t.secret),
        traceparent: `00-${TRACE}-${PARENT}-01`,
        tracestate: "vendor=opaque",
      },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, code_verifier: pkce!.verifier }).toString(),
    });
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as { access_token: string; id_token: string };
    const userinfo = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(userinfo.status).toBe(200);

    // A private_key_jwt client whose keys are at a jwks_uri: /introspect fetches them (outbound).
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    served_jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" }] };
    const { client: jwt_client } = await t.add_client({ token_endpoint_auth_method: "private_key_jwt", jwks_uri: `http://127.0.0.1:${jwks_server.port}/jwks` });
    const now = t.clock.now();
    const assertion = await new SignJWT({ iss: jwt_client.client_id, sub: jwt_client.client_id, aud: t.issuer, iat: now, exp: now + 60, jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .sign(privateKey);
    const introspected = await fetch(`${t.url}/introspect`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", traceparent: `00-${OUTBOUND_TRACE}-${PARENT}-01` },
      body: new URLSearchParams({ token: tokens.access_token, client_assertion_type: JWT_BEARER, client_assertion: assertion }).toString(),
    });
    expect(introspected.status).toBe(200);

    secrets.push(t.password, code, pkce!.verifier, tokens.access_token, tokens.id_token, t.secret, assertion, ...browser.cookies.values());
    secrets.push(...tokens.id_token.split("."), ...tokens.access_token.split(".").filter((part) => part.length > 20));
  } finally {
    // Stopping flushes the spans still queued.
    await t.stop();
  }
  spans = receiver.spans();
  raw = receiver.raw.join("\n");
});

afterAll(async () => {
  await receiver.close();
  await jwks_server.stop();
});

const named = (name: string) => spans.filter((span) => span.name === name);
const children_of = (parent: ReceivedSpan) => spans.filter((span) => span.trace_id === parent.trace_id && span.parent_span_id === parent.span_id);

describe("spans exported over OTLP/HTTP", () => {
  test("the request span: method and route template, status, client id; the caller's traceparent is its parent", () => {
    const [token] = named("POST /token");
    expect(token).toBeDefined();
    expect(token!.kind).toBe(2);
    expect(token!.trace_id).toBe(TRACE);
    expect(token!.parent_span_id).toBe(PARENT);
    expect(token!.attributes).toMatchObject({ "http.request.method": "POST", "http.route": "/token", "http.response.status_code": 200, "idp.client_id": client_id });
    expect(typeof token!.attributes["idp.request_id"]).toBe("string");
    expect(token!.resource).toMatchObject({ "service.name": "idp-under-test" });
    // The login page's POST is named by its route template, never by its path (the interaction's id).
    expect(named("POST /interaction/:id/login")).toHaveLength(1);
    expect(spans.some((span) => /\/interaction\/[^:]/.test(span.name))).toBe(false);
  });

  test("store calls and the ID Token's signature are children of the request span", () => {
    const [token] = named("POST /token");
    const children = children_of(token!);
    const store = children.filter((span) => span.name.startsWith("store."));
    expect(store.map((span) => span.name)).toContain("store.consume_code");
    for (const span of store) {
      expect(span.kind).toBe(3);
      expect(span.attributes).toMatchObject({ "db.system.name": "sqlite", "db.operation.name": span.name.slice("store.".length) });
    }
    const signing = children.filter((span) => span.name === "jwt.sign");
    expect(signing.length).toBeGreaterThan(0);
    expect(signing[0]!.attributes).toMatchObject({ "idp.jwt.alg": "RS256", "idp.jwt.typ": "JWT" });
    expect(typeof signing[0]!.attributes["idp.jwt.kid"]).toBe("string");
  });

  test("the password check is a child span of the login request", () => {
    const [login] = named("POST /interaction/:id/login");
    expect(children_of(login!).map((span) => span.name)).toContain("password.verify");
  });

  test("an outbound call is a client span, and the request it makes carries its traceparent", () => {
    const [introspect] = named("POST /introspect");
    expect(introspect!.trace_id).toBe(OUTBOUND_TRACE);
    const [outbound] = children_of(introspect!).filter((span) => span.name === "outbound jwks_uri");
    expect(outbound).toBeDefined();
    expect(outbound!.kind).toBe(3);
    expect(outbound!.attributes).toMatchObject({
      "server.address": "127.0.0.1",
      "http.request.method": "GET",
      "idp.outbound.purpose": "jwks_uri",
      "http.response.status_code": 200,
    });
    expect(jwks_traceparents).toEqual([`00-${OUTBOUND_TRACE}-${outbound!.span_id}-01`]);
  });

  test("no password, code, verifier, token, client secret, assertion or cookie anywhere in the exported bodies", () => {
    expect(raw.length).toBeGreaterThan(1000);
    expect(secrets.length).toBeGreaterThan(8);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(7);
      expect(raw.includes(secret), `a secret of ${secret.length} characters was exported`).toBe(false);
    }
  });

  test("log lines written inside a request carry its trace and span ids", () => {
    const line = logs.find((entry) => entry.msg === "request" && entry.path === "/token");
    const [token] = named("POST /token");
    expect(line).toMatchObject({ trace_id: TRACE, span_id: token!.span_id });
    expect(logs.find((entry) => entry.msg === "listening")?.trace_id).toBeUndefined();
  });

  test("the tracing is uninstalled when the server stops", () => {
    expect(current_tracing()).toBeNull();
  });
});

describe("the OTLP environment", () => {
  test("the standard variables are settings: endpoint with /v1/traces, the traces endpoint as is, headers masked; off without an endpoint", async () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/", OTEL_SERVICE_NAME: "login", OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" };
    expect(traces_url(load_config(env).tracing)).toBe("http://collector:4318/v1/traces");
    expect(load_config(env).tracing).toMatchObject({ service_name: "login", sampler: "traceidratio", sampler_arg: 0.25 });
    expect(traces_url(load_config({ ...env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/otlp" }).tracing)).toBe("https://traces.example/otlp");
    expect(traces_url(load_config({ ...env, OTEL_SDK_DISABLED: "true" }).tracing)).toBeNull();
    expect(traces_url(load_config({}).tracing)).toBeNull();
    expect(() => load_config({ OTEL_TRACES_SAMPLER: "jaeger_remote" })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => load_config({ OTEL_EXPORTER_OTLP_HEADERS: "no pair here" })).toThrow(/OTEL_EXPORTER_OTLP_HEADERS/);
    const box = sandbox();
    try {
      const checked = await box.run(["config", "check", "--json"], { env: { ...env, OTEL_EXPORTER_OTLP_HEADERS: "api-key=s3cr3t-collector-key" } });
      expect(checked.code).toBe(0);
      expect(checked.stdout).not.toContain("s3cr3t-collector-key");
      expect(checked.json<{ config: { tracing: Record<string, unknown> } }>().config.tracing.headers).toBe("********");
    } finally {
      box.cleanup();
    }
  });

  test("the headers reach the collector; always_off exports no span", async () => {
    const quiet = await start_otlp_receiver();
    try {
      const t = await start_provider({ config: { tracing: { endpoint: quiet.url, sampler: "always_off", headers: "x-api-key=k%20v" } } });
      expect((await fetch(`${t.url}/.well-known/openid-configuration`)).status).toBe(200);
      await t.stop();
      expect(quiet.spans()).toEqual([]);
      const loud = await start_provider({ config: { tracing: { endpoint: quiet.url, headers: "x-api-key=k%20v" } } });
      // A malformed traceparent starts a new trace (W3C Trace Context §4.3).
      const malformed = `00-${"0".repeat(32)}-${PARENT}-01`;
      expect((await fetch(`${loud.url}/.well-known/openid-configuration`, { headers: { traceparent: malformed } })).status).toBe(200);
      await loud.stop();
      const [discovery] = quiet.spans().filter((span) => span.name === "GET /.well-known/openid-configuration");
      expect(discovery).toBeDefined();
      expect(discovery!.parent_span_id).toBe("");
      expect(discovery!.trace_id).not.toBe("0".repeat(32));
      expect(quiet.headers[0]!["x-api-key"]).toBe("k v");
    } finally {
      await quiet.close();
    }
  });

  test("without an endpoint nothing is installed", async () => {
    const t = await start_provider();
    try {
      expect(current_tracing()).toBeNull();
    } finally {
      await t.stop();
    }
  });

  test("OpenTelemetry is imported by src/app/tracing/otel.ts only, which only a dynamic import() loads", () => {
    const root = join(import.meta.dirname, "../../src");
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((file) => file.endsWith(".ts"));
    const importing = files.filter((file) => /from "@opentelemetry\//.test(readFileSync(join(root, file), "utf8")));
    expect(importing).toEqual(["app/tracing/otel.ts"]);
    const naming_otel = files.filter((file) => /["']\.{1,2}\/(tracing\/)?otel\.ts["']/.test(readFileSync(join(root, file), "utf8")));
    expect(naming_otel).toEqual(["app/tracing/index.ts"]);
    expect(readFileSync(join(root, "app/tracing/index.ts"), "utf8")).toMatch(/await import\("\.\/otel\.ts"\)/);
    expect(readFileSync(join(root, "app/tracing/index.ts"), "utf8")).not.toMatch(/^import [^\n]*otel\.ts/m);
  });
});
