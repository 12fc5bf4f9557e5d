// serve.ts on Deno: Deno.serve and a graceful stop. Deno has no native route table: precomputed
// endpoints (app.ts `native_routes`) are answered by the app like every other request. Deno.serve
// has no idle-connection timeout to set (FwConfig idle_timeout) and no body size limit: a body
// sent without a Content-Length is counted as it arrives and refused past the app's body_limit.
// Nor can it close the connections of a shutdown under way (its abort signal then fails with
// BadResource): past the grace period `stop` returns and what is still in flight ends with the
// process, as the caller then goes on to close the store and exit.
import { App, type FwConfig, type Item } from "../app.ts";
import type { AddressLookup } from "../context.ts";
import { PayloadTooLarge } from "../errors.ts";
import { listen_error, type Running } from "./server.ts";

/** Why `idp serve --workers` cannot run on Deno. */
export const PORT_SHARING =
  "Deno shares a port between processes (SO_REUSEPORT) only with --unstable-net, and the workers would need the primary's permissions, which a process cannot pass on: on Deno run one server process (several instances need several ports or hosts)";

/** The ListenError for Deno's errors: its permission refusal and its failed name lookup carry no system code. */
function deno_listen_error(error: unknown, host: string, port: number): unknown {
  if (error instanceof Deno.errors.NotCapable) return listen_error({ code: "NOT_PERMITTED" }, host, port);
  if (error instanceof Error && (error as { code?: unknown }).code === undefined && /failed to lookup address/i.test(error.message)) {
    return listen_error({ code: "ENOTFOUND" }, host, port);
  }
  return listen_error(error, host, port);
}

export function claim_port(hostname: string, port: number): number {
  try {
    const listener = Deno.listen({ hostname, port, transport: "tcp" });
    const bound = listener.addr.port;
    listener.close();
    return bound;
  } catch (error) {
    throw deno_listen_error(error, hostname, port);
  }
}

/**
 * The request with its body counted as it arrives: past `limit` bytes the body fails with the
 * 413 that Fw's body reader (body.ts) answers for a declared Content-Length over the limit.
 */
function counted(request: Request, limit: number): Request {
  let seen = 0;
  const body = request.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) throw new PayloadTooLarge(`Body larger than ${limit} bytes`);
        controller.enqueue(chunk);
      },
    }),
  );
  return new Request(request, { body, duplex: "half" } as RequestInit);
}

const INTERNAL_ERROR = JSON.stringify({ error: "internal_server_error", message: "Internal server error" });

export function start(config: FwConfig, items: readonly Item[]): Running {
  const app = new App(config, items);
  const hostname = config.hostname ?? "127.0.0.1";
  const port = config.port ?? 3000;
  if (config.reuse_port === true) throw new Error(PORT_SHARING);
  const limit = app.body_limit;
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve(
      {
        hostname,
        port,
        // Deno prints a line of its own unless told otherwise; the app logs its own start.
        onListen: () => {},
        onError: () => new Response(INTERNAL_ERROR, { status: 500, headers: { "content-type": "application/json; charset=utf-8" } }),
      },
      (request, info) => {
        // The client's address for the context (context.ts AddressLookup), from this connection.
        const lookup: AddressLookup = { requestIP: () => ({ address: info.remoteAddr.hostname }) };
        const checked = request.body !== null && request.headers.get("content-length") === null ? counted(request, limit) : request;
        return app.answer(checked, lookup);
      },
    );
  } catch (error) {
    throw deno_listen_error(error, hostname, port);
  }
  const url = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${server.addr.port}`;
  return {
    app,
    server,
    url,
    refresh_native: () => Promise.resolve(false),
    native_ready: Promise.resolve(),
    async stop(grace_ms = 10_000) {
      // shutdown() stops accepting at once and waits for the requests in flight (see the header
      // for what happens past the grace period).
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((done) => (timer = setTimeout(done, grace_ms)));
      await Promise.race([server.shutdown(), grace]);
      clearTimeout(timer);
    },
  };
}
