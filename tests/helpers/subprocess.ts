/**
 * The provider as an operator runs it: a separate process (the compiled `idp` executable, or
 * `bun run main.ts`, `deno task idp`) started from a fresh temporary directory with its own SQLite
 * file (or, with IDP_E2E_DATABASE=postgres, a throwaway PostgreSQL database), seeded
 * through its own admin CLI, and reached over HTTP only. Used by the end-to-end suites when
 * IDP_E2E_TARGET asks for it (target.ts) and by the build test.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create_temp_database } from "../store/pg.ts";
import type { ClientMetadata } from "../../src/store/types.ts";
import { PASSWORD, REDIRECT_URI, free_port } from "./provider.ts";
import { type Child, run, spawn } from "./spawn.ts";
import type { E2eProvider } from "./target.ts";
import { setTimeout as sleep } from "node:timers/promises";

export type CliRun = { code: number; stdout: string; stderr: string };

export type SubprocessProvider = E2eProvider & {
  /** The working directory of the server and of every CLI call (holds idp.sqlite and the logs). */
  dir: string;
  env: Record<string, string>;
  /** Runs `idp <argv>` like an operator would (same directory and environment). */
  cli(argv: string[], stdin?: string): Promise<CliRun>;
  /** Runs `idp <argv> --json` and parses stdout; throws with stderr when it fails. */
  cli_json<T>(argv: string[], stdin?: string): Promise<T>;
};

/** clients add can express these; anything else is registered through POST /register. */
const CLI_METADATA = new Set(["client_name", "token_endpoint_auth_method", "redirect_uris", "grant_types", "post_logout_redirect_uris", "scope", "application_type"]);

/** The same alice as tests/helpers/provider.ts, as `idp users add` options. */
const ALICE = Object.entries({
  name: "Alice Liddell",
  "given-name": "Alice",
  "family-name": "Liddell",
  picture: "https://rp.example.com/alice.png",
  email: "alice@example.com",
  phone: "+1 555 0100",
  "address-json": JSON.stringify({ street_address: "1 Rabbit Hole", locality: "Oxford", postal_code: "OX1", country: "GB" }),
})
  .flatMap(([option, value]) => [`--${option}`, value])
  .concat("--email-verified");

/** The text of a file, or "" when there is none (yet). */
function read_or_empty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

async function wait_ready(url: string, proc: Child, logs: () => string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`the server exited with ${proc.exitCode} before it was ready:\n${logs()}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(50);
  }
  throw new Error(`the server was not ready within ${ms} ms:\n${logs()}`);
}

/**
 * Starts `command serve` (e.g. ["/tmp/x/idp"]) on a free port after seeding the same user and
 * client as the in-process provider (tests/helpers/provider.ts), through the CLI.
 */
export async function start_subprocess_provider(command: string[], options: { env?: Record<string, string>; issuer_host?: string } = {}): Promise<SubprocessProvider> {
  const dir = mkdtempSync(join(tmpdir(), "idp-e2e-"));
  const port = await free_port();
  // The issuer may name a host only the tests' browsers resolve (issuer_host); the server is reached at `url`.
  const url = `http://127.0.0.1:${port}`;
  const issuer = `http://${options.issuer_host ?? "127.0.0.1"}:${port}`;
  // Nothing of this process's environment leaks in (a CI DATABASE_URL, IDP_* settings).
  // IDP_E2E_DATABASE=postgres: a throwaway PostgreSQL database instead of the SQLite file.
  const database = process.env.IDP_E2E_DATABASE === "postgres" ? await create_temp_database() : null;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    DATABASE_URL: database?.url ?? `sqlite:${join(dir, "idp.sqlite")}`,
    IDP_ISSUER: issuer,
    PORT: String(port),
    HOST: "127.0.0.1",
    IDP_SIGNING_ALGS: "RS256,ES256",
    IDP_ARGON2_MEMORY_KIB: "1024",
    IDP_ARGON2_TIME_COST: "1",
    IDP_LOG_REQUESTS: "false",
    ...options.env,
  };

  const cli = (argv: string[], stdin = ""): Promise<CliRun> => run([...command, ...argv], { cwd: dir, env, input: stdin });
  const cli_json = async <T>(argv: string[], stdin?: string): Promise<T> => {
    const run = await cli([...argv, "--json"], stdin);
    if (run.code !== 0) throw new Error(`idp ${argv.join(" ")} exited with ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout) as T;
  };

  let server: Child | undefined;
  const cleanup = async () => {
    if (server && server.exitCode === null) {
      server.kill("SIGTERM");
      const stopped = await Promise.race([server.exited.then(() => true), sleep(15_000).then(() => false)]);
      if (!stopped) server.kill("SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  };

  try {
    const user = await cli_json<{ id: string; username: string }>(["users", "add", "alice", "--password-stdin", ...ALICE], `${PASSWORD}\n`);
    const seeded = await cli_json<{ client_id: string; client_secret: string }>([
      "clients",
      "add",
      "--name",
      "Test App",
      "--redirect-uri",
      REDIRECT_URI,
      "--auth-method",
      "client_secret_basic",
      "--grant-type",
      "authorization_code",
    ]);

    // Logs go to files, not pipes: an unread pipe fills up and blocks the server.
    const [out, err] = [join(dir, "server.log"), join(dir, "server.err")];
    server = spawn([...command, "serve"], { cwd: dir, env, stdin: "ignore", stdout: { file: out }, stderr: { file: err } });
    await wait_ready(url, server, () => `${read_or_empty(out)}\n${read_or_empty(err)}`);

    let registration_token: string | undefined;
    const register = async (metadata: ClientMetadata) => {
      registration_token ??= (await cli_json<{ token: string }>(["registration-token", "create"])).token;
      const body = { redirect_uris: [REDIRECT_URI], grant_types: ["authorization_code"], response_types: ["code"], ...metadata };
      const response = await fetch(`${url}/register`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", authorization: `Bearer ${registration_token}` },
        body: JSON.stringify(body),
      });
      const info = (await response.json()) as { client_id: string; client_secret?: string };
      if (response.status !== 201) throw new Error(`POST /register answered ${response.status}: ${JSON.stringify(info)}`);
      return { client: { client_id: info.client_id }, secret: info.client_secret ?? null };
    };

    return {
      url,
      issuer,
      user,
      password: PASSWORD,
      client: { client_id: seeded.client_id },
      secret: seeded.client_secret,
      dir,
      env,
      cli,
      cli_json,
      async add_client(metadata) {
        if (!Object.keys(metadata).every((key) => CLI_METADATA.has(key))) return register(metadata);
        const argv = ["clients", "add", "--name", metadata.client_name ?? "Client"];
        for (const uri of metadata.redirect_uris ?? [REDIRECT_URI]) argv.push("--redirect-uri", uri);
        for (const grant of metadata.grant_types ?? ["authorization_code"]) argv.push("--grant-type", grant);
        for (const uri of metadata.post_logout_redirect_uris ?? []) argv.push("--post-logout-redirect-uri", uri);
        if (metadata.token_endpoint_auth_method) argv.push("--auth-method", metadata.token_endpoint_auth_method);
        if (metadata.scope) argv.push("--scope", metadata.scope);
        if (metadata.application_type) argv.push("--application-type", metadata.application_type);
        const added = await cli_json<{ client_id: string; client_secret?: string }>(argv);
        return { client: { client_id: added.client_id }, secret: added.client_secret ?? null };
      },
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
