/**
 * The process and timer primitives of the runtime that code outside the runtime seam needs, so
 * the composition root and the protocol rules never name the runtime (docs/ARCHITECTURE.md). Each
 * runtime has its adapter (runtime_bun.ts, runtime_deno.ts), chosen once by which.ts's RUNTIME.
 */
import { RUNTIME } from "./which.ts";

/** What each runtime's adapter provides (checked here, where it is chosen). */
type RuntimeAdapter = {
  is_compiled_executable(): boolean;
  sleep(ms: number): Promise<void>;
  read_stdin(): Promise<string>;
  environment(names: readonly string[]): Record<string, string | undefined>;
  may_listen(host: string, port: number): boolean;
};

const adapter: RuntimeAdapter = RUNTIME === "deno" ? await import("./runtime_deno.ts") : await import("./runtime_bun.ts");

/** True in a single-file executable (`bun build --compile`, `deno compile`), false when run from source. */
export const is_compiled_executable: () => boolean = adapter.is_compiled_executable;

/** Resolves after `ms` milliseconds. */
export const sleep: (ms: number) => Promise<void> = adapter.sleep;

/** Everything on standard input, as UTF-8 text (`idp users add --password-stdin`). */
export const read_stdin: () => Promise<string> = adapter.read_stdin;

/**
 * The process environment as the configuration reads it. Where the runtime lets the process
 * read every variable, all of them (so a misspelt IDP_ name is found, src/app/config.ts); where
 * its permissions allow only some (Deno's `--allow-env=IDP_*,…`), those of `names` that are set
 * and allowed, since asking for any other would throw.
 */
export const environment: (names: readonly string[]) => Record<string, string | undefined> = adapter.environment;

/**
 * Whether the runtime's permissions let the process listen on `host`:`port` (Deno's
 * `--allow-net`; always on Bun). Asked before a node:net listen, whose refusal on Deno is thrown
 * where no caller can catch it.
 */
export const may_listen: (host: string, port: number) => boolean = adapter.may_listen;
