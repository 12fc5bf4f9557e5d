// Serving an app with Bun.serve, and stopping it gracefully.
import type { Server } from "bun";
import { App, type FwConfig, type Item } from "./app.ts";

export interface Running {
  readonly app: App;
  readonly server: Server<unknown>;
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish (up to grace_ms), then closes. */
  stop(grace_ms?: number): Promise<void>;
}

export function start(config: FwConfig, items: readonly Item[]): Running {
  const app = new App(config, items);
  const server = Bun.serve({
    port: config.port ?? 3000,
    hostname: config.hostname ?? "127.0.0.1",
    development: false,
    // Twice the limit: a declared Content-Length over body_limit is refused by Fw (413 in the
    // app's error shape, which handlers may turn into a protocol error); Bun's own bare 413 is
    // only the backstop for chunked bodies far over it.
    maxRequestBodySize: app.body_limit * 2,
    idleTimeout: config.idle_timeout ?? 30,
    fetch: app.answer,
    error: () => new Response(JSON.stringify({ error: "internal_server_error", message: "Internal server error" }), {
      status: 500,
      headers: { "content-type": "application/json; charset=utf-8" },
    }),
  });
  const url = `http://${server.hostname?.includes(":") ? `[${server.hostname}]` : server.hostname}:${server.port}`;
  return {
    app,
    server,
    url,
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
