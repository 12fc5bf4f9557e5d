// Serving an app, and stopping it gracefully: the one place the framework starts a server;
// everything else sees the server only as an AddressLookup (context.ts). Bun.serve
// (serve_bun.ts) or Deno.serve (serve_deno.ts), chosen once by RUNTIME (platform/which.ts).
import { RUNTIME } from "../../platform/which.ts";
import type { FwConfig, Item } from "../app.ts";
import type { Running } from "./server.ts";

export { ListenError, type Running } from "./server.ts";

type ServeAdapter = {
  start(config: FwConfig, items: readonly Item[]): Running;
  claim_port(hostname: string, port: number): number;
  readonly PORT_SHARING: string | null;
};

const adapter: ServeAdapter = RUNTIME === "deno" ? await import("./serve_deno.ts") : await import("./serve_bun.ts");

/** Builds the app and starts serving it; throws a ListenError when the address cannot be had. */
export const start: (config: FwConfig, items: readonly Item[]) => Running = adapter.start;

/**
 * Checks that nobody listens on `host:port`, SO_REUSEPORT sockets included (a plain bind fails
 * next to them), and returns the port (a free one for port 0). The socket is closed again at
 * once: whoever listens next may share the port (reuse_port) with their siblings only.
 */
export const claim_port: (hostname: string, port: number) => number = adapter.claim_port;

/** Null when servers of several processes can share a port (FwConfig `reuse_port`), else why not. */
export const PORT_SHARING: string | null = adapter.PORT_SHARING;
