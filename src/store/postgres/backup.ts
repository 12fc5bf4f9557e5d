/**
 * A PostgreSQL database copied for a backup and put back by a restore (the file around the copy:
 * app/backup/), through PostgreSQL's own tools: `pg_dump --format=custom` takes a consistent
 * snapshot while the servers go on writing (one transaction, at the repeatable read isolation
 * level: PostgreSQL's pg_dump documentation), and `pg_restore` loads it. Both must be on the PATH
 * (Debian: the postgresql-client package) and no older than the server's major version; when one
 * is missing, the error says what to run instead.
 *
 * The password of the database URL goes to the tools in PGPASSWORD, never on their command line,
 * where any user of the machine could read it (ps).
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { StoreError } from "../types.ts";
import { map_postgres_error, postgres_schema_version } from "./connection.ts";
import type { PgDriver } from "./driver.ts";

/** The environment the tools run with: PATH to find them, and libpq's PG* variables if any. */
export type ToolEnv = Record<string, string | undefined>;

/** The URL without its password, and the password (percent-decoded) for PGPASSWORD. */
export function split_password(url: string): { url: string; password: string | undefined } {
  const parsed = new URL(url);
  if (parsed.password === "") return { url, password: undefined };
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  return { url: parsed.toString(), password };
}

/** The executable `name` on the PATH of `env`, or null. */
export function find_tool(name: string, env: ToolEnv): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** `pg_dump` as an operator would type it, password elided, for the message when the tool is missing. */
export function pg_dump_command(url: string, out: string): string {
  const { url: bare, password } = split_password(url);
  return `${password === undefined ? "" : "PGPASSWORD=… "}pg_dump --format=custom --file='${out}' '${bare}'`;
}

function missing(tool: string, instead: string): StoreError {
  return new StoreError(
    `${tool} is not on the PATH: install PostgreSQL's client tools, of the server's major version or newer (Debian: apt-get install postgresql-client), and run this again. Without them, ${instead}`,
  );
}

/** Runs `tool` with `args`; resolves with its stdout, rejects with a StoreError holding its stderr. */
function run_tool(tool: string, args: string[], env: ToolEnv, password: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { env: { ...env, ...(password === undefined ? {} : { PGPASSWORD: password }) }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (err += chunk));
    child.on("error", (error) => reject(new StoreError(`${tool} did not start: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolve(out);
      else reject(new StoreError(`${tool} failed (exit ${code}): ${err.trim().split("\n").slice(-5).join(" ") || "no message"}`));
    });
  });
}

/** Dumps the database at `url` into the new file `out` (pg_dump's custom format); returns its schema version. */
export async function pg_snapshot(url: string, out: string, driver: PgDriver, env: ToolEnv): Promise<number> {
  const tool = find_tool("pg_dump", env);
  if (tool === null) {
    throw missing("pg_dump", `take a dump yourself: ${pg_dump_command(url, "idp.dump")} (restore it with pg_restore --no-owner --no-privileges --dbname=…)`);
  }
  // Read before the dump: a migration applied in between would leave the dump newer than this
  // says, and a restore then finds those migrations already applied (it migrates from the
  // database's own record, never from the manifest).
  const schema = await pg_schema_version(url, driver);
  const { url: bare, password } = split_password(url);
  await run_tool(tool, ["--format=custom", "--no-password", `--file=${out}`, `--dbname=${bare}`], env, password);
  return schema;
}

/** Checks that `path` is an archive pg_restore can read (its table of contents); false when pg_restore is not there to ask. */
export async function pg_payload_check(path: string, env: ToolEnv): Promise<boolean> {
  const tool = find_tool("pg_restore", env);
  if (tool === null) return false;
  try {
    await run_tool(tool, ["--list", path], env, undefined);
  } catch (error) {
    throw new StoreError(`the backup does not hold a PostgreSQL dump pg_restore can read: ${(error as Error).message}`);
  }
  return true;
}

async function with_pool<T>(url: string, driver: PgDriver, body: (sql: ReturnType<PgDriver["connect"]>["sql"]) => Promise<T>): Promise<T> {
  const pool = driver.connect(url, { max: 1, connection_timeout: 10, idle_timeout: 5 });
  try {
    return await body(pool.sql);
  } catch (error) {
    throw map_postgres_error(driver, error);
  } finally {
    await pool.close(0).catch(() => {});
  }
}

async function pg_schema_version(url: string, driver: PgDriver): Promise<number> {
  return with_pool(url, driver, (sql) => postgres_schema_version(sql));
}

/** The tables of the database's current schema, by name. */
export async function pg_tables(url: string, driver: PgDriver): Promise<string[]> {
  return with_pool(url, driver, async (sql) => {
    const rows = await sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`;
    return rows.map((row) => row.name);
  });
}

/**
 * Loads the dump at `payload` into the database at `url`: with `replace`, its tables are dropped
 * first (the caller saved them); then pg_restore in one transaction (all or nothing), without
 * the dumped owner and privileges (the restoring user owns what it creates).
 */
export async function pg_install(url: string, payload: string, driver: PgDriver, env: ToolEnv, replace: boolean): Promise<void> {
  const tool = find_tool("pg_restore", env);
  if (tool === null) {
    const { url: bare, password } = split_password(url);
    throw missing(
      "pg_restore",
      `restore the dump yourself: ${password === undefined ? "" : "PGPASSWORD=… "}pg_restore --no-owner --no-privileges --single-transaction --dbname='${bare}' FILE`,
    );
  }
  if (replace) {
    const tables = await pg_tables(url, driver);
    if (tables.length > 0) {
      const list = tables.map((name) => `"${name.replaceAll('"', '""')}"`).join(", ");
      await with_pool(url, driver, async (sql) => void (await sql.unsafe(`DROP TABLE IF EXISTS ${list} CASCADE`)));
    }
  }
  const { url: bare, password } = split_password(url);
  await run_tool(tool, ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction", "--no-password", `--dbname=${bare}`, payload], env, password);
}
