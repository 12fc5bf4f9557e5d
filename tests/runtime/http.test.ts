/**
 * The server adapters of both runtimes (src/fw/runtime/serve_bun.ts, serve_deno.ts) serving one
 * app (fixtures/app.ts) in processes of their own, reached over real HTTP: every answer alike
 * (404 and 405 bodies, HEAD, body limits, cookies, downloads, errors), streaming, the client's
 * address, the words for an address that cannot be had, and a graceful stop.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BODY_LIMIT } from "./fixtures/app.ts";
import { DENO, ROOT, start, type Started } from "./process.ts";
import { rejection } from "../helpers/settle.ts";

const FIXTURE = join(ROOT, "tests/runtime/fixtures/serve.ts");
const FILES = join(ROOT, "tests/fw/fixtures/files");
const DENO_FLAGS = ["run", "--no-prompt", "--allow-net=127.0.0.1", `--allow-read=${FILES}`];

const COMMANDS = {
  bun: (...args: string[]) => [process.execPath, FIXTURE, ...args],
  deno: (...args: string[]) => [DENO, ...DENO_FLAGS, FIXTURE, ...args],
} as const;
type RuntimeName = keyof typeof COMMANDS;

type Served = { process: Started; url: string };
const served = {} as Record<RuntimeName, Served>;

async function serve(runtime: RuntimeName, ...args: string[]): Promise<Served> {
  const process = start(COMMANDS[runtime](...args));
  const first = await process.line();
  if (typeof first.url !== "string") throw new Error(`${runtime}: ${JSON.stringify(first)}`);
  return { process, url: first.url };
}

beforeAll(async () => {
  [served.bun, served.deno] = await Promise.all([serve("bun"), serve("deno")]);
}, 60_000);

afterAll(async () => {
  for (const { process } of Object.values(served)) process.proc.kill("SIGKILL");
});

/** A body sent without Content-Length (chunked), from parts. */
function chunked(...parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

const json = { "content-type": "application/json" };
const big = JSON.stringify({ text: "a".repeat(BODY_LIMIT) });

/** The requests every runtime must answer alike: [label, path, init]. */
const REQUESTS: [string, string, RequestInit?][] = [
  ["a JSON answer", "/greeting"],
  ["404 in the app's shape", "/nowhere"],
  ["405 with Allow", "/greeting", { method: "DELETE" }],
  ["HEAD has no body", "/greeting", { method: "HEAD" }],
  ["HEAD of nothing", "/nowhere", { method: "HEAD" }],
  ["a valid body", "/echo", { method: "POST", headers: json, body: JSON.stringify({ text: "hi ✓" }) }],
  ["415 for another media type", "/echo", { method: "POST", headers: { "content-type": "text/plain" }, body: "hi" }],
  ["400 for malformed JSON", "/echo", { method: "POST", headers: json, body: "{" }],
  ["422 for a contract it breaks", "/echo", { method: "POST", headers: json, body: "{}" }],
  ["413 for a declared length over the limit", "/echo", { method: "POST", headers: json, body: big }],
  ["a chunked body within the limit", "/echo", { method: "PUT", headers: json, body: chunked('{"text":', '"chunked"}'), duplex: "half" } as RequestInit],
  ["413 for a chunked body over the limit", "/echo", { method: "PUT", headers: json, body: chunked(big.slice(0, 600), big.slice(600)), duplex: "half" } as RequestInit],
  ["414 for a URL too long", `/greeting?${"x".repeat(9000)}`],
  ["the client's address", "/ip"],
  ["a download", "/download/report.txt"],
  ["a download that is not there", "/download/nothing.txt"],
  ["cookies read and set (first of a name wins)", "/count", { headers: { cookie: "n=41; other=%E2%9C%93; n=7" } }],
  ["500 for a bug, no details", "/boom"],
  ["a precomputed document", "/doc.json"],
];

const KEPT_HEADERS = ["content-type", "allow", "content-disposition", "cache-control"];

async function transcript(url: string): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const [label, path, init] of REQUESTS) {
    // A fresh body per runtime: a stream is read once.
    const fresh =
      init?.body instanceof ReadableStream ? { ...init, body: chunked(...(label.includes("over") ? [big.slice(0, 600), big.slice(600)] : ['{"text":', '"chunked"}'])) } : init;
    const response = await fetch(url + path, fresh);
    const headers = Object.fromEntries(KEPT_HEADERS.flatMap((name) => (response.headers.has(name) ? [[name, response.headers.get(name)]] : [])));
    answers.push({ label, status: response.status, headers, cookies: response.headers.getSetCookie(), body: await response.text() });
  }
  return answers;
}

describe("the same app on Bun.serve and Deno.serve", () => {
  test("answers alike, request for request", async () => {
    const bun = await transcript(served.bun.url);
    const deno = await transcript(served.deno.url);
    expect(deno).toEqual(bun);
    // What they agree on is what Fw promises (a check that the transcript is not empty talk).
    const by_label = Object.fromEntries((deno as { label: string }[]).map((answer) => [answer.label, answer]));
    expect(by_label["404 in the app's shape"]).toMatchObject({ status: 404, body: JSON.stringify({ error: "not_found", message: "Nothing at /nowhere", path: "/nowhere" }) });
    expect(by_label["405 with Allow"]).toMatchObject({ status: 405, headers: { allow: "GET, HEAD" } });
    expect(by_label["HEAD has no body"]).toMatchObject({ status: 200, body: "" });
    expect(by_label["413 for a chunked body over the limit"]).toMatchObject({
      status: 413,
      body: JSON.stringify({ error: "payload_too_large", message: `Body larger than ${BODY_LIMIT} bytes` }),
    });
    expect(by_label["a chunked body within the limit"]).toMatchObject({ status: 200, body: JSON.stringify({ text: "chunked", length: 7 }) });
    expect(by_label["the client's address"]).toMatchObject({ body: JSON.stringify({ ip: "127.0.0.1" }) });
    expect(by_label["a download"]).toMatchObject({ status: 200, body: "report body\n" });
    expect(by_label["cookies read and set (first of a name wins)"]).toMatchObject({ body: JSON.stringify({ seen: 41, other: "✓", missing: null }) });
    expect(by_label["500 for a bug, no details"]).toMatchObject({ status: 500, body: JSON.stringify({ error: "internal_server_error", message: "Internal server error" }) });
  }, 30_000);

  for (const runtime of ["bun", "deno"] as const) {
    test(`${runtime}: a streamed part arrives before the stream ends`, async () => {
      const response = await fetch(`${served[runtime].url}/ticks`);
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      const reader = response.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe("first\n");
      expect(await (await fetch(`${served[runtime].url}/release`)).text()).toBe("released");
      let rest = "";
      for (let part = await reader.read(); !part.done; part = await reader.read()) rest += new TextDecoder().decode(part.value);
      expect(rest).toBe("second\n");
    });
  }
});

describe("listening and stopping on Deno", () => {
  test("a port in use: a ListenError in the same words as on Bun", async () => {
    const port = new URL(served.bun.url).port;
    const [on_bun, on_deno] = await Promise.all([serve_error("bun", port), serve_error("deno", port)]);
    expect(on_deno).toEqual({ code: "EADDRINUSE", message: `127.0.0.1:${port} is already in use` });
    expect(on_deno).toEqual(on_bun);
  }, 30_000);

  test("an address --allow-net does not grant: NOT_PERMITTED, naming the flag", async () => {
    const started = start([DENO, "run", "--no-prompt", "--allow-net=127.0.0.2", FIXTURE, "4999"]);
    expect(await started.line()).toEqual({
      listen_error: { code: "NOT_PERMITTED", message: "127.0.0.1:4999: the runtime's permissions do not allow listening there (Deno: --allow-net=127.0.0.1:4999)" },
    });
    expect(await started.proc.exited).toBe(3);
  }, 30_000);

  test("SIGTERM: the request in flight is answered, new connections are refused, the process exits 0", async () => {
    const server = await serve("deno");
    const inflight = fetch(`${server.url}/slow?ms=600`);
    await sleep(150);
    server.process.proc.kill("SIGTERM");
    const response = await inflight;
    expect(await response.text()).toBe("done");
    expect(await server.process.line()).toEqual({ stopped: true });
    expect(await server.process.proc.exited).toBe(0);
    expect(await rejection(fetch(`${server.url}/greeting`))).toBeInstanceOf(Error);
  }, 30_000);

  test("past the grace period stop() returns; what is in flight ends with the process", async () => {
    const server = await serve("deno", "0", "200");
    const inflight = fetch(`${server.url}/slow?ms=5000`).then(
      (response) => response.text(),
      (error: Error) => `failed: ${error.name}`,
    );
    await sleep(150);
    const stopping = Date.now();
    server.process.proc.kill("SIGTERM");
    expect(await server.process.line()).toEqual({ stopped: true });
    expect(await server.process.proc.exited).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(4000);
    expect(await inflight).toStartWith("failed");
  }, 30_000);
});

async function serve_error(runtime: RuntimeName, port: string): Promise<unknown> {
  const started = start(COMMANDS[runtime](port));
  const line = await started.line();
  expect(await started.proc.exited).toBe(3);
  return line.listen_error;
}
