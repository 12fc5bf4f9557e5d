/**
 * What the backup tests share: fresh databases of either kind, the CLI in process or as a
 * separate process (as an operator runs it next to a running server), a server started on a
 * database a restore filled, and a sign-in through HTTP with a password.
 */
import { expect } from "../helpers/test_api.ts";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load_config } from "../../src/app/config.ts";
import { serve, type Served } from "../../src/app/server.ts";
import { run_cli } from "../../src/cli/index.ts";
import type { Log } from "../../src/oidc/provider.ts";
import { Browser, authorize } from "../helpers/browser.ts";
import { basic, pkce } from "../helpers/flow.ts";
import { REDIRECT_URI, free_port } from "../helpers/provider.ts";
import { create_temp_database } from "../store/pg.ts";
import { idp_command, run } from "../helpers/spawn.ts";

export const ROOT = join(import.meta.dirname, "../..");
/** Fast argon2id, as tests/helpers/provider.ts has it. */
export const FAST_ARGON2 = { IDP_ARGON2_MEMORY_KIB: "1024", IDP_ARGON2_TIME_COST: "1" };

export type Kind = "sqlite" | "postgres";
export type Fresh = { url: string; drop(): Promise<void> };

/** A temporary directory for one test file's files (backups, SQLite databases). */
export function temp_dir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "idp-backup-test-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An empty database of `kind`: a SQLite file not yet there, or a new PostgreSQL database. */
export async function fresh_database(kind: Kind, dir: string): Promise<Fresh> {
  if (kind === "postgres") return create_temp_database();
  return { url: `sqlite:${join(dir, `${crypto.randomUUID()}.sqlite`)}`, drop: async () => {} };
}

/** A new IDP_SECRET_KEY. */
export function secret_key(): string {
  return randomBytes(32).toString("base64url");
}

export type Run = { code: number; stdout: string; stderr: string };

/** `idp <argv>` in this process, with PATH (pg_dump, pg_restore) and `env`. */
export async function idp(argv: string[], env: Record<string, string>, stdin = ""): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await run_cli(argv, {
    stdin,
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: { PATH: process.env.PATH ?? "", ...FAST_ARGON2, ...env },
  });
  return { code, stdout, stderr };
}

/** `idp <argv>` as a process of its own (main.ts on the runtime running the tests), as an operator runs it beside the server. */
export async function idp_process(argv: string[], env: Record<string, string>): Promise<Run> {
  const { code, stdout, stderr } = await run([...idp_command(), ...argv], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...FAST_ARGON2, ...env } });
  return { code, stdout, stderr };
}

/** A server on `database_url` as a restore left it (nothing seeded), configured like tests/helpers/provider.ts. */
export async function serve_database(database_url: string, config: Record<string, unknown> = {}, log: Log = () => {}): Promise<Served> {
  const port = await free_port();
  const loaded = load_config(
    {},
    {
      issuer: `http://127.0.0.1:${port}`,
      port,
      host: "127.0.0.1",
      database_url,
      signing_algs: ["RS256", "ES256"],
      log_requests: false,
      argon2: { memory_kib: 1024, time_cost: 1 },
      login_throttle: { delay_ms: 0 },
      ...config,
    },
  );
  return serve(loaded, { port, log, out: () => {} });
}

/**
 * Signs `username` in through the pages with the password, redeems the code at /token with the
 * client's secret, and returns the `sub` /userinfo answers.
 */
export async function sign_in(url: string, client: { client_id: string; secret: string }, username: string, password: string): Promise<string> {
  const challenge = pkce();
  const authorization = new URL("/authorize", url);
  for (const [key, value] of Object.entries({
    client_id: client.client_id,
    response_type: "code",
    redirect_uri: REDIRECT_URI,
    scope: "openid",
    state: "st",
    nonce: "n",
    code_challenge: challenge.challenge,
    code_challenge_method: "S256",
  }))
    authorization.searchParams.set(key, value);
  const { callback } = await authorize(new Browser(), authorization.href, { username, password, callback_prefix: REDIRECT_URI });
  const code = callback.searchParams.get("code");
  expect(code).not.toBeNull();
  const token = await fetch(`${url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(client.client_id, client.secret) },
    body: new URLSearchParams({ grant_type: "authorization_code", code: code!, redirect_uri: REDIRECT_URI, code_verifier: challenge.verifier }).toString(),
  });
  expect(token.status).toBe(200);
  const { access_token } = (await token.json()) as { access_token: string };
  const userinfo = await fetch(`${url}/userinfo`, { headers: { authorization: `Bearer ${access_token}` } });
  expect(userinfo.status).toBe(200);
  return ((await userinfo.json()) as { sub: string }).sub;
}
