/**
 * `idp serve` (also `idp` alone): starts the server and runs until the signal in CliIo aborts
 * (main.ts wires SIGINT and SIGTERM to it), then stops it cleanly. With `--workers N` (or
 * IDP_WORKERS) this process becomes the primary of N worker processes (src/app/workers.ts), each
 * of which runs this same command as a worker.
 */
import { is_loopback_issuer } from "../app/config.ts";
import { parse_database_url } from "../store/open.ts";
import { int_option } from "./args.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { command, type ArgsOf, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { VERSION } from "./version.ts";

function aborted(signal: AbortSignal | undefined): Promise<void> {
  // No signal: a server runs until the process is killed.
  if (!signal) return new Promise<void>(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** Why the server could not listen, naming the setting to change. */
function listen_message(error: { code: string; address: string; message: string; setting: string | null }): string {
  // Another listener's address (the LDAP directory's): its setting, not PORT and HOST.
  if (error.setting !== null) {
    if (error.code === "NOT_PERMITTED")
      return `${error.setting}: ${error.message}. The Deno tasks grant the address it names when it is set in the environment or IDP_CONFIG (README, "Running on Deno")`;
    return `${error.setting}: ${error.code === "EADDRINUSE" ? `${error.address} is already in use` : error.message} (check ${error.setting})`;
  }
  if (error.code === "EADDRINUSE") {
    return `${error.address} is already in use: another server (perhaps another idp) listens there. Stop it, or choose another port (PORT or --port).`;
  }
  // The runtime's own permissions (Deno's --allow-net), computed from PORT and HOST before --port and --host were read.
  if (error.code === "NOT_PERMITTED") {
    return `${error.message}. The Deno tasks grant the address of PORT and HOST (or IDP_CONFIG): set those rather than --port and --host (README, "Running on Deno")`;
  }
  const setting = error.code === "EACCES" ? "PORT or --port" : "HOST or --host";
  return `cannot listen on ${error.message} (check ${setting})`;
}

const SERVE = {
  summary: "start the server (the default when no command is given)",
  options: {
    production: { type: "boolean", help: "production mode (same as IDP_PRODUCTION=true)" },
    port: { type: "string", value: "N", help: "port to listen on (overrides PORT; 0 picks a free port)" },
    host: { type: "string", value: "H", help: "address to bind (overrides HOST)" },
    demo: { type: "boolean", help: "on an empty database, outside production, create a demo user and the built-in demo application (/demo) and print how to sign in (npm start)" },
    workers: { type: "string", value: "N|auto", help: "run N server processes sharing the port (overrides IDP_WORKERS; auto: one per core)" },
  },
  notes: `Starts the HTTP server (applying pending migrations first); stops cleanly on SIGINT/SIGTERM.
\`idp\` with no command, or with options only (\`idp --port 8080\`), does the same.
With --workers, a primary process applies the migrations, starts the workers, restarts one that
dies and stops them all on SIGTERM/SIGINT; it needs a SQLite file or PostgreSQL.`,
} as const satisfies CommandSpec<OptionSpecs>;

async function run_serve(ctx: CliContext, { flags }: ArgsOf<typeof SERVE>): Promise<void> {
  const overrides: Record<string, unknown> = {};
  if (flags.production) overrides.production = true;
  const port = int_option("port", flags.port, { min: 0, max: 65535 });
  if (port !== undefined) overrides.port = port;
  if (flags.host !== undefined) overrides.host = flags.host;
  if (flags.workers !== undefined) overrides.workers = flags.workers;
  const config = ctx.config(overrides);
  // In production the issuer must be https (cookies are Secure, codes and tokens travel over
  // TLS); plain http is accepted only on loopback, e.g. trying the binary out locally.
  if (config.production && !config.issuer.startsWith("https://") && !is_loopback_issuer(config)) {
    throw new CliError(`production mode needs an https issuer, not ${config.issuer} (set IDP_ISSUER=https://...); http is allowed only for localhost, 127.0.0.1 and [::1]`);
  }

  const workers = await import("../app/workers.ts");
  const role = worker_role_of(workers, ctx);
  if (role === null && workers.worker_count(config.workers) > 1) return primary(ctx, config, workers.worker_count(config.workers));

  // Loaded only here, so admin commands do not pay for the server's modules.
  const { serve } = await import("../app/server.ts");
  const { ListenError } = await import("../fw/index.ts");
  // With --json, stdout carries only JSON (the start line and the server's JSON log lines).
  const out = ctx.json ? ctx.io.stderr : ctx.io.stdout;
  let server: Awaited<ReturnType<typeof serve>>;
  try {
    server = await serve(config, {
      seed_demo: flags.demo && (role === null || role.index === 1),
      // A worker started again after a death does not print the start hints a second time.
      out: role?.restarted ? () => {} : out,
      ...(role !== null ? { worker: { index: role.index, count: role.count }, port: role.port } : {}),
      ...(ctx.io.program === undefined ? {} : { program: ctx.io.program }),
    });
  } catch (error) {
    if (error instanceof ListenError) throw new CliError(listen_message(error));
    throw error;
  }
  if (role !== null) {
    // The primary prints the start line once every worker listens; a worker whose primary is
    // gone stops as if it had been told to.
    workers.report_ready();
    const orphaned = new AbortController();
    const unwatch = workers.watch_primary(role, () => orphaned.abort());
    await Promise.race([aborted(ctx.io.signal), aborted(orphaned.signal)]);
    unwatch();
    await server.stop();
    return;
  }
  // One line, like the log lines around it.
  if (ctx.json) ctx.io.stdout(`${JSON.stringify({ version: VERSION, url: server.url, issuer: config.issuer })}\n`);
  await aborted(ctx.io.signal);
  await server.stop();
}

type Workers = typeof import("../app/workers.ts");

function worker_role_of(workers: Workers, ctx: CliContext): ReturnType<Workers["worker_role"]> {
  try {
    return workers.worker_role(ctx.io.env);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/** `idp serve`, also `idp` alone. */
export const serve_command = command(SERVE, run_serve);

/** `idp serve --workers N`: checks, migrates once, then runs and supervises the workers. */
async function primary(ctx: CliContext, config: ReturnType<CliContext["config"]>, count: number): Promise<void> {
  const target = parse_database_url(config.database_url);
  if (target.kind === "sqlite" && target.path === ":memory:") {
    throw new CliError(
      "--workers (IDP_WORKERS) needs a database the workers share: each worker would have its own sqlite::memory: database. Use a SQLite file (sqlite:./data/idp.sqlite) or PostgreSQL",
    );
  }
  if (ctx.io.self === undefined) throw new CliError("--workers (IDP_WORKERS) needs the idp executable to start its workers (not available in-process)");
  const { Fw, ListenError } = await import("../fw/index.ts");
  if (Fw.PORT_SHARING !== null) throw new CliError(`--workers (IDP_WORKERS) is not available here: ${Fw.PORT_SHARING}`);
  const { migrate } = await import("../store/open.ts");
  const { json_log } = await import("../oidc/provider.ts");
  const { run_primary } = await import("../app/workers.ts");
  let port: number;
  try {
    port = Fw.claim_port(config.host, config.port);
  } catch (error) {
    if (error instanceof ListenError) throw new CliError(listen_message(error));
    throw error;
  }
  // Once, before any worker starts: the workers then open an up-to-date schema and never race
  // on it.
  const migrated = await migrate(config.database_url, { max: 1 });
  json_log({ level: "info", msg: "primary", workers: count, port, pid: process.pid, migrations_applied: migrated.applied.length });
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  // The workers run this same command line (--demo included: only worker 1 seeds).
  const env = { ...ctx.io.env };
  const code = await run_primary({
    count,
    port,
    command: ctx.io.self,
    env,
    log: json_log,
    signal: ctx.io.signal,
    on_ready: (pids) => {
      json_log({ level: "info", msg: "workers listening", url, workers: count, pids });
      if (ctx.json) ctx.io.stdout(`${JSON.stringify({ version: VERSION, url, issuer: config.issuer, workers: count, pids })}\n`);
    },
  });
  if (code !== 0) throw new CliError("the workers could not be kept running (see the log above)");
}
