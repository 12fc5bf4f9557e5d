// What a running server offers, and why one could not listen: the contract both server adapters
// keep (serve_bun.ts, serve_deno.ts; serve.ts chooses one).
import type { App } from "../app.ts";

export interface Running {
  readonly app: App;
  /** The runtime's own server object (Bun's Server, Deno's HttpServer), for tests. */
  readonly server: unknown;
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish (up to grace_ms), then closes. */
  stop(grace_ms?: number): Promise<void>;
  /**
   * Recomputes the answers the runtime serves natively (app.ts `native_routes`: Bun's route
   * table) and hands the changed ones to the server; true when something changed. Call it when
   * what a precomputed endpoint returns may have changed (for example a key rotation). `start`
   * calls it once. A runtime without native routes answers false: the app answers every request.
   */
  refresh_native(): Promise<boolean>;
  /** Settles when the first refresh_native (from `start`) is done. */
  readonly native_ready: Promise<void>;
}

/**
 * The server could not listen on its address: `code` is the system's (EADDRINUSE, EADDRNOTAVAIL,
 * EACCES, EINVAL, ENOTFOUND) or NOT_PERMITTED (the runtime's permissions refuse the address:
 * Deno's `--allow-net`), `address` is `host:port` as configured.
 */
export class ListenError extends Error {
  override name = "ListenError";
  /** The setting that named the address, when not the server's own (the caller's to say). */
  setting: string | null = null;
  constructor(
    readonly code: string,
    readonly host: string,
    readonly port: number,
    message: string,
  ) {
    super(message);
  }

  get address(): string {
    return `${this.host.includes(":") ? `[${this.host}]` : this.host}:${this.port}`;
  }
}

/** The ListenError for an error with a system `code`, in the same words on every runtime; anything else as it is. */
export function listen_error(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return error;
  const at = new ListenError(code, host, port, "").address;
  const words: Record<string, string> = {
    EADDRINUSE: `${at} is already in use`,
    EADDRNOTAVAIL: `${at}: ${host} is not an address of this machine`,
    EACCES: `${at}: permission denied (ports below 1024 need privileges)`,
    EINVAL: `${at}: ${host} is not a valid address to listen on`,
    ENOTFOUND: `${at}: the host name ${host} does not resolve`,
    NOT_PERMITTED: `${at}: the runtime's permissions do not allow listening there (Deno: --allow-net=${at})`,
  };
  return new ListenError(code, host, port, words[code] ?? `cannot listen on ${at}: ${(error as Error).message}`);
}
