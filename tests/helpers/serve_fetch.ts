/**
 * A small HTTP server for tests that answers with a fetch-style handler (a Request in, a Response
 * out), on node:http so Bun and Deno run the same tests: the fake upstreams, relying parties,
 * JWKS and logout endpoints the provider calls, and `free_port`.
 *
 * A body that is complete within one turn of the event loop (a string, JSON, bytes) is sent with
 * its Content-Length; one that is still streaming then is sent chunked, as it comes, so a test can
 * serve a body that never ends.
 */
import { createServer as create_http, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as create_https } from "node:https";
import { createServer as create_net } from "node:net";
import { Buffer } from "node:buffer";
import { setImmediate } from "node:timers";

export type FetchHandler = (request: Request) => Response | Promise<Response>;

export type FetchServer = {
  /** `http://127.0.0.1:<port>` (https with `tls`), no trailing slash. */
  url: string;
  port: number;
  /** Closes the server and every open connection. */
  stop(): Promise<void>;
};

export type ServeOptions = {
  /** 0 (the default) for a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  hostname?: string;
  /** PEM certificate and key: HTTPS. */
  tls?: { cert: string; key: string };
};

function listen(server: Server | ReturnType<typeof create_net>, port: number, hostname: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : port);
    });
  });
}

async function to_request(incoming: IncomingMessage, origin: string): Promise<Request> {
  const headers = new Headers();
  for (let i = 0; i < incoming.rawHeaders.length; i += 2) headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
  const method = incoming.method ?? "GET";
  let body: Blob | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Uint8Array<ArrayBuffer>);
    body = new Blob(chunks);
  }
  const host = incoming.headers.host;
  return new Request(`${host ? `${origin.split("://")[0]}://${host}` : origin}${incoming.url ?? "/"}`, { method, headers, body });
}

/** The chunks of `body` that arrive within this turn of the event loop, and whether that was all. */
async function within_a_turn(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<{ chunks: Uint8Array[]; done: boolean }> {
  const chunks: Uint8Array[] = [];
  let turn_over = false;
  const turn = new Promise<null>((resolve) => setImmediate(() => ((turn_over = true), resolve(null))));
  for (;;) {
    const read = await Promise.race([reader.read(), turn]);
    if (read === null) return { chunks, done: false };
    if (read.done) return { chunks, done: true };
    chunks.push(read.value);
    if (turn_over) return { chunks, done: false };
  }
}

async function send(response: Response, out: ServerResponse, head: boolean): Promise<void> {
  for (const [name, value] of response.headers) if (name !== "set-cookie") out.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) out.setHeader("set-cookie", cookies);
  out.statusCode = response.status;
  if (!response.body || head) {
    if (!response.body && !response.headers.has("content-length")) out.setHeader("content-length", "0");
    out.end();
    return;
  }
  const reader = response.body.getReader();
  out.on("close", () => void reader.cancel().catch(() => {}));
  const first = await within_a_turn(reader);
  if (first.done) {
    const body = Buffer.concat(first.chunks);
    out.setHeader("content-length", String(body.byteLength));
    out.end(body);
    return;
  }
  out.flushHeaders();
  for (const chunk of first.chunks) out.write(chunk);
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
    if (done || out.destroyed) break;
    out.write(value);
  }
  out.end();
}

/** Starts a server that answers every request with `handler`. */
export async function serve_fetch(handler: FetchHandler, options: ServeOptions = {}): Promise<FetchServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  const scheme = options.tls ? "https" : "http";
  let origin = "";
  const answer = async (incoming: IncomingMessage, out: ServerResponse) => {
    try {
      const response = await handler(await to_request(incoming, origin));
      await send(response, out, incoming.method === "HEAD");
    } catch (error) {
      if (!out.headersSent) {
        out.statusCode = 500;
        out.end(String(error));
      } else out.destroy();
    }
  };
  const server = options.tls ? create_https({ cert: options.tls.cert, key: options.tls.key }, answer) : create_http(answer);
  const port = await listen(server, options.port ?? 0, hostname);
  origin = `${scheme}://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  return {
    url: origin,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A port nothing listens on right now (for an issuer that must name its port before its server starts). */
export async function free_port(): Promise<number> {
  const probe = create_net();
  const port = await listen(probe, 0, "127.0.0.1");
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
