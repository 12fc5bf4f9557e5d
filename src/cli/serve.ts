/**
 * `idp serve` (also `idp` alone): starts the server and runs until the signal in CliIo aborts
 * (main.ts wires SIGINT and SIGTERM to it), then stops it cleanly.
 */
import { is_loopback_issuer } from "../app/config.ts";
import { expect_positionals, int_option, parse_args } from "./args.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { VERSION } from "./help.ts";

function aborted(signal: AbortSignal | undefined): Promise<void> {
  // No signal: a server runs until the process is killed.
  if (!signal) return new Promise<void>(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** Why the server could not listen, naming the setting to change. */
function listen_message(error: { code: string; address: string; message: string }): string {
  if (error.code === "EADDRINUSE") {
    return `${error.address} is already in use: another server (perhaps another idp) listens there. Stop it, or choose another port (PORT or --port).`;
  }
  const setting = error.code === "EACCES" ? "PORT or --port" : "HOST or --host";
  return `cannot listen on ${error.message} (check ${setting})`;
}

export async function serve_command(ctx: CliContext, argv: string[]): Promise<void> {
  const { flags, positionals } = parse_args(argv, {
    production: { type: "boolean" },
    port: { type: "string" },
    host: { type: "string" },
    demo: { type: "boolean" },
  });
  expect_positionals(positionals, []);
  const overrides: Record<string, unknown> = {};
  if (flags.production) overrides.production = true;
  const port = int_option("port", flags.port, { min: 0, max: 65535 });
  if (port !== undefined) overrides.port = port;
  if (flags.host !== undefined) overrides.host = flags.host;
  const config = ctx.config(overrides);
  // In production the issuer must be https (cookies are Secure, codes and tokens travel over
  // TLS); plain http is accepted only on loopback, e.g. trying the binary out locally.
  if (config.production && !config.issuer.startsWith("https://") && !is_loopback_issuer(config)) {
    throw new CliError(`production mode needs an https issuer, not ${config.issuer} (set IDP_ISSUER=https://...); http is allowed only for localhost, 127.0.0.1 and [::1]`);
  }

  // Loaded only here, so admin commands do not pay for the server's modules.
  const { serve } = await import("../app/server.ts");
  const { ListenError } = await import("../fw/index.ts");
  // With --json, stdout carries only JSON (the start line and the server's JSON log lines).
  const out = ctx.json ? ctx.io.stderr : ctx.io.stdout;
  let server: Awaited<ReturnType<typeof serve>>;
  try {
    server = await serve(config, { seed_demo: flags.demo, out });
  } catch (error) {
    if (error instanceof ListenError) throw new CliError(listen_message(error));
    throw error;
  }
  // One line, like the log lines around it.
  if (ctx.json) ctx.io.stdout(`${JSON.stringify({ version: VERSION, url: server.url, issuer: config.issuer })}\n`);
  await aborted(ctx.io.signal);
  await server.stop();
}
