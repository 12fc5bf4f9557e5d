// Starting the two providers, each pinned to the server core:
// - ours: `bun main.ts serve` on a fresh SQLite file (the durable store), seeded with the CLI;
//   with `runtime: "deno"`, `deno run <flags> main.ts serve` instead, the flags computed by
//   scripts/deno/permissions.ts as `deno task idp` computes them (README, "Running on Deno"),
//   but started directly so that the measured PID is the server's, not the task runner's;
// - the peer: oidc-provider on Node (peer/server.mjs), in-memory adapter, same client and user.
import type { Subprocess } from "bun";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pinned } from "../http/wrk.ts";
import type { Target } from "./flows.ts";

/** The provider's tree: this checkout, or BENCH_IDP_ROOT (a copy, to compare a change A/B). */
const ROOT = process.env.BENCH_IDP_ROOT ?? join(import.meta.dir, "../..");
const BUN = process.execPath;
export const NODE = process.env.BENCH_NODE ?? "node";

export type Running = {
  target: Target;
  proc: Subprocess;
  pid: number;
  cleanup: () => void;
  /** Ours only: the environment of its server and CLI (DATABASE_URL names its SQLite file). */
  env?: Record<string, string>;
};

export const USERNAME = "bench";
export const PASSWORD = "correct horse battery staple";
export const REDIRECT_URI = "http://127.0.0.1:9/cb";

/** The environment of our server and CLI: the durable SQLite file, OWASP argon2id, no request log. */
function our_env(db: string, port: number, extra: Record<string, string>): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    DATABASE_URL: `sqlite:${db}`,
    IDP_ISSUER: `http://127.0.0.1:${port}`,
    PORT: String(port),
    HOST: "127.0.0.1",
    IDP_PRODUCTION: "true",
    IDP_LOG_REQUESTS: "false",
    // Per-client request limits (1,200 tokens a minute by default) would cap the load itself.
    IDP_RATE_LIMITS: "off",
    // OWASP Password Storage Cheat Sheet minimum for argon2id = our defaults (m=19 MiB, t=2, p=1).
    IDP_ARGON2_MEMORY_KIB: "19456",
    IDP_ARGON2_TIME_COST: "2",
    ...extra,
  };
}

export async function cli(env: Record<string, string>, args: string[], stdin?: string, root: string = ROOT): Promise<Record<string, unknown>> {
  const proc = Bun.spawn([BUN, join(root, "main.ts"), ...args, "--json"], {
    env,
    cwd: root,
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`idp ${args.join(" ")} exited ${code}: ${err}`);
  return JSON.parse(out);
}

/** The Deno binary of the npm package (deno.json's tasks use the same one); BENCH_DENO picks another. */
const DENO = (root: string) => process.env.BENCH_DENO ?? join(root, "node_modules/.bin/deno");

/** The server's permission flags for this environment, as `deno task idp` computes them (deno.json). */
async function deno_permissions(env: Record<string, string>, root: string): Promise<string[]> {
  const proc = Bun.spawn([DENO(root), "run", "--allow-env", "--allow-read", "--allow-write=.", "--no-prompt", join(root, "scripts/deno/permissions.ts")], {
    env,
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const flags = out.trim().split(/\s+/);
  if (code !== 0 || flags.some((flag) => !flag.startsWith("--"))) throw new Error(`scripts/deno/permissions.ts exited ${code}: ${err}${out}`);
  return flags;
}

async function wait_ready(base: string, proc: Subprocess, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${what} exited with ${proc.exitCode} before listening`);
    try {
      const res = await fetch(`${base}/.well-known/openid-configuration`);
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {}
    await Bun.sleep(100);
  }
  proc.kill("SIGKILL");
  throw new Error(`${what} did not answer on ${base} within 30 s`);
}

/** Ours, on a new temporary SQLite file; `bun_flags` e.g. --cpu-prof for profile.ts. */
export async function start_ours(
  port: number,
  cpu: string | undefined,
  options: {
    bun_flags?: string[];
    env?: Record<string, string>;
    /** Register the client for the device grant (RFC 8628) too. */
    device?: boolean;
    /** Another checkout to run (an A/B within one run, bench/oidc/tracing.ts); BENCH_IDP_ROOT or this one by default. */
    root?: string;
    /** The server's runtime (the CLI that seeds it stays on Bun); bench/oidc/deno.ts. */
    runtime?: "bun" | "deno";
    /** Deno only: flags before the permissions, e.g. --inspect for a profile. */
    deno_flags?: string[];
  } = {},
): Promise<Running> {
  const root = options.root ?? ROOT;
  const dir = mkdtempSync(join(tmpdir(), "idp-bench-"));
  const env = our_env(join(dir, "idp.sqlite"), port, options.env ?? {});
  await cli(env, ["migrate"], undefined, root);
  await cli(
    env,
    ["users", "add", USERNAME, "--password-stdin", "--email", "bench@example.com", "--email-verified", "--name", "Bench User", "--given-name", "Bench", "--family-name", "User"],
    `${PASSWORD}\n`,
    root,
  );
  const device = options.device ? ["--grant-type", "urn:ietf:params:oauth:grant-type:device_code"] : [];
  const client = await cli(
    env,
    [
      "clients",
      "add",
      "--name",
      "Bench",
      "--redirect-uri",
      REDIRECT_URI,
      "--grant-type",
      "authorization_code",
      "--grant-type",
      "client_credentials",
      ...device,
      "--scope",
      "openid profile email",
    ],
    undefined,
    root,
  );
  const deno = options.runtime === "deno";
  const command = deno
    ? [DENO(root), "run", ...(options.deno_flags ?? []), ...(await deno_permissions(env, root)), join(root, "main.ts"), "serve"]
    : [BUN, ...(options.bun_flags ?? []), join(root, "main.ts"), "serve"];
  const proc = Bun.spawn(pinned(cpu, command), { env, cwd: root, stdout: "ignore", stderr: "inherit" });
  const base = `http://127.0.0.1:${port}`;
  await wait_ready(base, proc, deno ? "our server on Deno" : "our server");
  return {
    target: {
      name: deno ? "ours-deno" : "ours",
      base,
      client_id: String(client.client_id),
      client_secret: String(client.client_secret),
      redirect_uri: REDIRECT_URI,
      username: USERNAME,
      password: PASSWORD,
    },
    proc,
    pid: proc.pid,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
    env,
  };
}

/** The peer, configured with a client and user like ours (its own client_id, a fresh 256-bit secret). */
export async function start_peer(port: number, cpu: string | undefined): Promise<Running> {
  const config = { client_id: "bench-peer-client", client_secret: randomBytes(32).toString("base64url"), redirect_uri: REDIRECT_URI, username: USERNAME, password: PASSWORD };
  const proc = Bun.spawn(pinned(cpu, [NODE, join(import.meta.dir, "peer/server.mjs")]), {
    env: { ...(process.env as Record<string, string>), PORT: String(port), NODE_ENV: "production", BENCH_CONFIG: JSON.stringify(config) },
    stdout: "ignore",
    stderr: "pipe",
  });
  void drain_peer_stderr(proc);
  const base = `http://127.0.0.1:${port}`;
  await wait_ready(base, proc, "peer (oidc-provider)");
  return { target: { name: "peer", base, ...config }, proc, pid: proc.pid, cleanup: () => {} };
}

/** Shows the peer's errors but not its one-line "unsupported runtime" warning on Node 20. */
async function drain_peer_stderr(proc: Subprocess<"ignore", "ignore", "pipe">): Promise<void> {
  const reader = proc.stderr.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    const text = new TextDecoder().decode(read.value);
    for (const line of text.split("\n")) if (line.trim() !== "" && !/Unsupported runtime|oidc-provider WARNING/.test(line)) console.error(`  peer: ${line}`);
  }
}

export async function stop(running: Running): Promise<void> {
  running.proc.kill("SIGTERM");
  const timer = setTimeout(() => running.proc.kill("SIGKILL"), 10_000);
  await running.proc.exited;
  clearTimeout(timer);
  running.cleanup();
}
