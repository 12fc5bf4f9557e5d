/**
 * The provider as an operator runs it: `main.ts serve` as a real child process (under the
 * runtime of the tests: tests/helpers/spawn.ts) with its configuration in the environment, and
 * the admin CLI (`main.ts users add ...`) against the same database. Everything the server
 * prints is kept, to grep its log.
 */
import { free_port } from "../helpers/provider.ts";
import { type Child, idp_command, pump, ROOT, run, spawn } from "../helpers/spawn.ts";
import { until } from "../helpers/until.ts";

export { ROOT };

/** Settings every test server shares: fast argon2id, one signing alg, keys polled every second. */
export function base_env(database_url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    DATABASE_URL: database_url,
    HOST: "127.0.0.1",
    IDP_SIGNING_ALGS: "RS256",
    IDP_ARGON2_MEMORY_KIB: "1024",
    IDP_ARGON2_TIME_COST: "1",
    IDP_KEYS_POLL_SECONDS: "1",
    ...extra,
  };
}

export type CliResult = { code: number; stdout: string; stderr: string };

/** Runs one admin command to completion. */
export function cli(args: string[], env: Record<string, string>, stdin = ""): Promise<CliResult> {
  return run([...idp_command(), ...args], { cwd: ROOT, env, input: stdin });
}

/** Runs a command with --json and returns its parsed output; throws with stderr when it fails. */
export async function cli_json<T>(args: string[], env: Record<string, string>, stdin = ""): Promise<T> {
  const result = await cli([...args, "--json"], env, stdin);
  if (result.code !== 0) throw new Error(`idp ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export type ServerProcess = {
  url: string;
  port: number;
  proc: Child;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** The JSON log lines on stdout so far. */
  logs(): Record<string, unknown>[];
  /** Waits until a log line matches (rejects after `ms`). */
  wait_for_log(match: (line: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  /** Sends a signal and resolves to the exit code. */
  signal(name: "SIGTERM" | "SIGINT"): Promise<number>;
  /** SIGTERM unless it already exited; never throws. */
  stop(): Promise<void>;
};

/**
 * Starts `main.ts serve --json` on a free port (the issuer defaults to its own URL) and waits
 * for its start line.
 */
export async function spawn_server(env: Record<string, string>, options: { port?: number } = {}): Promise<ServerProcess> {
  const port = options.port ?? (await free_port());
  const full = { IDP_ISSUER: `http://127.0.0.1:${port}`, ...env, PORT: String(port) };
  const proc = spawn([...idp_command(), "serve", "--json"], { cwd: ROOT, env: full, stdout: "pipe", stderr: "pipe" });
  let stdout = "";
  let stderr = "";
  void pump(proc.stdout, (text) => void (stdout += text));
  void pump(proc.stderr, (text) => void (stderr += text));
  const logs = () =>
    stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const server: ServerProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    proc,
    output: () => stdout + stderr,
    logs,
    wait_for_log: (match, ms = 15_000) => until(() => logs().find(match), ms, "a log line"),
    async signal(name) {
      proc.kill(name);
      return proc.exited;
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
      await proc.exited;
    },
  };
  try {
    await Promise.race([
      server.wait_for_log((line) => typeof line.version === "string" && line.url !== undefined, 30_000),
      proc.exited.then((code) => {
        throw new Error(`server exited ${code} before it started:\n${stdout}${stderr}`);
      }),
    ]);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

/** Adds the test user and a confidential client through the CLI; returns the client's credentials. */
export async function seed(env: Record<string, string>, redirect_uri: string, password: string): Promise<{ client_id: string; client_secret: string; user_id: string }> {
  const user = await cli_json<{ id: string }>(
    ["users", "add", "alice", "--password-stdin", "--email", "alice@example.com", "--email-verified", "--name", "Alice Liddell"],
    env,
    `${password}\n`,
  );
  const client = await cli_json<{ client_id: string; client_secret: string }>(["clients", "add", "--name", "Test App", "--redirect-uri", redirect_uri], env);
  return { client_id: client.client_id, client_secret: client.client_secret, user_id: user.id };
}
