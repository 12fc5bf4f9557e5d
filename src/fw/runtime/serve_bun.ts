// serve.ts on Bun: Bun.serve, its native route table for precomputed endpoints, and a
// graceful stop.
import type { Server } from "bun";
import { App, type FwConfig, type Item, type NativeAnswer } from "../app.ts";
import { listen_error, type Running } from "./server.ts";

/** Bun shares a port between processes (SO_REUSEPORT) by itself. */
export const PORT_SHARING = null;

export function claim_port(hostname: string, port: number): number {
  let probe: Server<unknown>;
  try {
    probe = Bun.serve({ port, hostname, development: false, reusePort: false, fetch: () => new Response(null, { status: 503 }) });
  } catch (error) {
    throw listen_error(error, hostname, port);
  }
  const bound = probe.port ?? port;
  void probe.stop(true);
  return bound;
}

export function start(config: FwConfig, items: readonly Item[]): Running {
  const app = new App(config, items);
  const hostname = config.hostname ?? "127.0.0.1";
  const port = config.port ?? 3000;
  let server: Server<unknown>;
  try {
    server = Bun.serve({
      port,
      hostname,
      development: false,
      // Explicit: with development false Bun sets SO_REUSEPORT, and a second server on the same
      // port would start too and silently take half the connections. One process per port,
      // unless the caller shares it on purpose (`idp serve --workers N`).
      reusePort: config.reuse_port === true,
      // Twice the limit: a declared Content-Length over body_limit is refused by Fw (413 in the
      // app's error shape, which handlers may turn into a protocol error); Bun's own bare 413 is
      // only the backstop for chunked bodies far over it.
      maxRequestBodySize: app.body_limit * 2,
      idleTimeout: config.idle_timeout ?? 30,
      fetch: app.answer,
      error: () =>
        new Response(JSON.stringify({ error: "internal_server_error", message: "Internal server error" }), {
          status: 500,
          headers: { "content-type": "application/json; charset=utf-8" },
        }),
    });
  } catch (error) {
    throw listen_error(error, hostname, port);
  }
  // Bun's route table answers precomputed endpoints without entering JavaScript (HEAD and
  // If-None-Match included); every other request, and every method but GET on those paths,
  // goes to app.answer.
  let frozen = new Map<string, NativeAnswer>();
  let refreshing: Promise<boolean> = Promise.resolve(false);
  const refresh_native = (): Promise<boolean> => {
    // After a failed refresh the next one still runs (the failure is reported to its own caller).
    refreshing = refreshing
      .catch(() => false)
      .then(async () => {
        if (config.serve_natively === false || app.native_paths().length === 0) return false;
        const answers = await app.native_routes();
        if (same_answers(frozen, answers)) return false;
        frozen = answers;
        const routes: Record<string, { GET: Response }> = {};
        for (const [path, answer] of answers) routes[path] = { GET: new Response(answer.body, { status: answer.status, headers: answer.headers as [string, string][] }) };
        server.reload({ routes, fetch: app.answer });
        return true;
      });
    return refreshing;
  };
  const native_ready = refresh_native().then(
    () => undefined,
    (error: unknown) => app.services.log({ level: "error", msg: "native routes not installed", error: String(error) }),
  );
  const url = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  return {
    app,
    server,
    url,
    refresh_native,
    native_ready,
    async stop(grace_ms = 10_000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const forced = new Promise<void>((done) => {
        timer = setTimeout(() => {
          void server.stop(true);
          done();
        }, grace_ms);
      });
      await Promise.race([server.stop(false), forced]);
      clearTimeout(timer);
    },
  };
}

function same_answers(a: Map<string, NativeAnswer>, b: Map<string, NativeAnswer>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, x] of a) {
    const y = b.get(path);
    if (y === undefined || x.status !== y.status || x.headers.length !== y.headers.length) return false;
    if (x.headers.some(([name, value], i) => y.headers[i]![0] !== name || y.headers[i]![1] !== value)) return false;
    if (Buffer.compare(x.body, y.body) !== 0) return false;
  }
  return true;
}
