/**
 * What a load scenario runs against: a fresh database (a SQLite file in a temporary folder, or a
 * new PostgreSQL database `idp_load_<random>` reached through a TCP proxy we can cut), users and
 * a client seeded with the admin CLI, and `bun run main.ts serve` child processes
 * (tests/ops/process.ts). The shared PostgreSQL server itself is never touched beyond
 * CREATE/DROP DATABASE.
 */
import { SQL } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli_json, spawn_server, type ServerProcess } from "../../tests/ops/process.ts";
import { tcp_proxy, type TcpProxy } from "../../tests/store/tcp_proxy.ts";
import { CALLBACK, type Client, type User } from "./driver.ts";

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export type Db = {
  kind: "sqlite" | "postgres";
  /** What the server uses (through the proxy for PostgreSQL). */
  url: string;
  /** The SQLite file, or the PostgreSQL URL without the proxy (for the checks). */
  direct: string;
  proxy?: TcpProxy;
  drop(): Promise<void>;
};

export async function make_db(kind: "sqlite" | "postgres"): Promise<Db> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "idp-load-"));
    const file = join(dir, "idp.sqlite");
    return { kind, url: `sqlite:${file}`, direct: file, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `idp_load_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = new SQL(ADMIN_URL, { max: 1 });
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  await admin.close();
  const target = new URL(ADMIN_URL);
  const proxy = await tcp_proxy(target.hostname, Number(target.port || 5432));
  const direct = new URL(ADMIN_URL);
  direct.pathname = `/${name}`;
  const via = new URL(direct);
  via.port = String(proxy.port);
  return {
    kind,
    url: via.toString(),
    direct: direct.toString(),
    proxy,
    async drop() {
      await proxy.stop().catch(() => {});
      const sql = new SQL(ADMIN_URL, { max: 1 });
      await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await sql.close();
    },
  };
}

/**
 * The servers' environment. Documented in bench/README.md: request rate limits off (every
 * request comes from 127.0.0.1), purge of expired rows off for the run (the checks count rows),
 * argon2id at the provider's defaults unless ARGON2=fast.
 */
export function server_env(db: Db, extra: Record<string, string> = {}): Record<string, string> {
  const fast = process.env.ARGON2 === "fast";
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    DATABASE_URL: db.url,
    HOST: "127.0.0.1",
    IDP_RATE_LIMITS: "false",
    IDP_PURGE_INTERVAL_SECONDS: "86400",
    IDP_LOG_REQUESTS: "true",
    ...(fast ? { IDP_ARGON2_MEMORY_KIB: "1024", IDP_ARGON2_TIME_COST: "1" } : {}),
    ...extra,
  };
}

/** `users add load-N` for N < count and one confidential client, through the CLI. */
export async function seed(env: Record<string, string>, count: number): Promise<{ users: User[]; client: Client }> {
  const users: User[] = Array.from({ length: count }, (_, n) => ({ username: `load-${n}`, password: `load-password-${n}-${crypto.randomUUID()}` }));
  // The first command creates the schema alone; then four at a time.
  const client = await cli_json<Client>(["clients", "add", "--name", "Load RP", "--redirect-uri", CALLBACK], env);
  for (let i = 0; i < users.length; i += 4) {
    await Promise.all(
      users
        .slice(i, i + 4)
        .map((u) =>
          cli_json(["users", "add", u.username, "--password-stdin", "--email", `${u.username}@example.com`, "--email-verified", "--name", u.username], env, `${u.password}\n`),
        ),
    );
  }
  return { users, client };
}

export function start(env: Record<string, string>, port?: number): Promise<ServerProcess> {
  return spawn_server(env, port === undefined ? {} : { port });
}

/** Resident set size of a process in MiB (VmRSS from /proc). */
export function rss_mib(pid: number): number {
  const line = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return line ? Number(line[1]) / 1024 : NaN;
}

/** Log lines of a server at level error, or about unhandled errors (none expected). */
export function error_logs(server: ServerProcess): Record<string, unknown>[] {
  return server.logs().filter((l) => l.level === "error" || l.msg === "unhandled error");
}

/** Statuses of the request log lines, counted. */
export function logged_statuses(server: ServerProcess): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of server.logs()) if (l.msg === "request") out[String(l.status)] = (out[String(l.status)] ?? 0) + 1;
  return out;
}
