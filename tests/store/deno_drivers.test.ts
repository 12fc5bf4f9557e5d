/**
 * The store on Deno: runs deno_store_check.ts with `deno run` (the npm `deno` of devDependencies)
 * and the permissions the store needs there, no more: read the repository and a temporary
 * directory, write only that directory, the uid and gid (Deno's node:fs `access` asks them:
 * sqlite/writable.ts), PostgreSQL's address and a closed port (the refused-connection check), and
 * the environment variables the script and postgres.js read (PG*, as libpq does). npm packages
 * resolve from node_modules (`--node-modules-dir=manual`). The PostgreSQL part runs when the
 * server answers, and is required with IDP_REQUIRE_POSTGRES=1 (pg.ts).
 */
import { expect, test } from "../helpers/test_api.ts";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TEST_DATABASE_URL, use_postgres } from "./pg.ts";
import { closed_port } from "./tcp_proxy.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DENO = join(ROOT, "node_modules", ".bin", "deno");
const SCRIPT = join(ROOT, "tests", "store", "deno_store_check.ts");

type Run = { code: number; output: string };

function deno(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(DENO, args, { env, cwd: ROOT, timeout: 110_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

const postgres = await use_postgres();

test(`the store works on Deno through its drivers: node:sqlite${postgres ? " and postgres.js" : " (PostgreSQL not reachable: SQLite only)"}`, async () => {
  const dir = mkdtempSync(join(tmpdir(), "idp-deno-store-"));
  try {
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? dir, NO_COLOR: "1", STORE_CHECK_DIR: dir };
    if (process.env.DENO_DIR !== undefined) env.DENO_DIR = process.env.DENO_DIR;
    const net: string[] = [];
    if (postgres) {
      const server = new URL(TEST_DATABASE_URL);
      const port = String(await closed_port());
      net.push(`${server.hostname}:${server.port || "5432"}`, `127.0.0.1:${port}`);
      Object.assign(env, { STORE_CHECK_POSTGRES: TEST_DATABASE_URL, STORE_CHECK_CLOSED_PORT: port });
    }
    const run = await deno(
      [
        "run",
        "--node-modules-dir=manual",
        `--allow-read=${ROOT},${dir}`,
        `--allow-write=${dir}`,
        "--allow-sys=uid,gid",
        ...(net.length > 0 ? [`--allow-net=${net.join(",")}`] : []),
        "--allow-env=STORE_CHECK_DIR,STORE_CHECK_POSTGRES,STORE_CHECK_CLOSED_PORT,PG*",
        SCRIPT,
      ],
      env,
    );
    if (run.code !== 0) throw new Error(`deno run ${SCRIPT} exited with ${run.code}:\n${run.output}`);
    expect(run.output).toContain("ok: sqlite: codes are single use");
    if (postgres) expect(run.output).toContain("ok: postgres: a server that refuses connections is StoreUnavailableError");
    else expect(run.output).toContain("skip: postgres");
    expect(run.output).toContain("all store checks passed on Deno");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
