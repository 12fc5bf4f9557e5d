/**
 * `idp serve --workers 2` as an operator runs it (issue 21, "All cores"): a primary process and
 * two workers sharing one port (SO_REUSEPORT), on a SQLite file and on PostgreSQL. Both workers
 * answer, a code redeemed concurrently over both is accepted once, a worker killed with -9 is
 * started again, SIGTERM stops everything with exit 0 and leaves no process behind, and the port
 * stays closed to any other server.
 */
import { afterAll, beforeAll, describe, expect, RUNTIME, test } from "../helpers/test_api.ts";
import { idp_command, spawn } from "../helpers/spawn.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { worker_count, worker_role } from "../../src/app/workers.ts";
import { run_cli } from "../../src/cli/index.ts";
import { Metrics } from "../../src/oidc/ops/metrics.ts";
import { free_port } from "../helpers/provider.ts";
import { until } from "../helpers/until.ts";
import { get_code, redeem, type Client, CALLBACK } from "../ops/flow.ts";
import { base_env, cli, seed, spawn_server, ROOT, type ServerProcess } from "../ops/process.ts";
import { create_temp_database, use_postgres } from "../store/pg.ts";
import { setTimeout as sleep } from "node:timers/promises";

const PASSWORD = "correct horse battery staple";
const METRICS_TOKEN = "workers-test-metrics-token";

/** Whether a process exists (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls an async probe until it gives a value (the helpers' `until` takes synchronous probes). */
async function eventually<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(100);
  }
}

/** The worker that answered each of `n` scrapes of /metrics, each on a new connection; with its text. */
async function scrape_workers(url: string, n: number): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}`, connection: "close" } });
    expect(response.status).toBe(200);
    const text = await response.text();
    const worker = /worker="(\d+)"/.exec(text)?.[1];
    if (worker === undefined) throw new Error(`no worker label in /metrics:\n${text.slice(0, 400)}`);
    seen.set(worker, text);
  }
  return seen;
}

/** The pids of the workers from the primary's log (the latest line per worker). */
function worker_pids(server: ServerProcess): Map<number, number> {
  const pids = new Map<number, number>();
  for (const line of server.logs()) if (line.msg === "worker ready") pids.set(line.worker as number, line.pid as number);
  return pids;
}

function token_count(metrics: string): number {
  let total = 0;
  for (const match of metrics.matchAll(/^idp_http_requests_total\{[^}]*route="\/token"[^}]*\} (\d+)$/gm)) total += Number(match[1]);
  return total;
}

function workers_suite(name: string, database: () => Promise<{ url: string; drop(): Promise<void> }>) {
  // Bun only: Deno refuses --workers (src/fw/runtime/serve_deno.ts PORT_SHARING; tests/runtime/deno_server.test.ts).
  describe.skipIf(RUNTIME !== "bun")(`idp serve --workers 2 on ${name} (Bun only: Deno refuses --workers)`, () => {
    let db: { url: string; drop(): Promise<void> };
    let env: Record<string, string>;
    let server: ServerProcess;
    let client: Client;

    beforeAll(async () => {
      db = await database();
      env = base_env(db.url, { IDP_LOG_REQUESTS: "false", IDP_METRICS_TOKEN: METRICS_TOKEN, IDP_WORKERS: "2", IDP_RATE_LIMITS: "false" });
      server = await spawn_server(env);
      const seeded = await seed(env, CALLBACK, PASSWORD);
      client = { client_id: seeded.client_id, client_secret: seeded.client_secret };
    }, 60_000);

    afterAll(async () => {
      if (server) {
        const pids = [...worker_pids(server).values()];
        await server.stop();
        for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL");
      }
      await db?.drop();
    });

    test("the primary starts two workers that both answer on the one port", async () => {
      const start = server.logs().find((line) => line.workers === 2 && Array.isArray(line.pids) && typeof line.version === "string");
      expect(start?.url).toBe(server.url);
      expect(worker_pids(server).size).toBe(2);
      const seen = await eventually(async () => {
        const workers = await scrape_workers(server.url, 10);
        return workers.size === 2 ? workers : undefined;
      });
      expect([...seen.keys()].sort()).toEqual(["1", "2"]);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    }, 30_000);

    test("codes redeemed 10 times at once over both workers: exactly one success each", async () => {
      const before = await scrape_workers(server.url, 30);
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await get_code(server.url, client, PASSWORD));
      for (const result of results) {
        const answers = await Promise.all(Array.from({ length: 10 }, () => redeem(server.url, client, result.code, result.pkce.verifier)));
        const statuses = answers.map((r) => r.status);
        expect(statuses.filter((s) => s === 200).length).toBe(1);
        expect(statuses.filter((s) => s === 400).length).toBe(9);
        for (const r of answers.filter((a) => a.status === 400)) expect(((await r.json()) as { error: string }).error).toBe("invalid_grant");
      }
      // Both workers answered some of the 40 redemptions (the kernel spreads the connections).
      const after = await eventually(async () => {
        const workers = await scrape_workers(server.url, 10);
        return workers.size === 2 ? workers : undefined;
      });
      for (const worker of ["1", "2"]) expect(token_count(after.get(worker)!)).toBeGreaterThan(token_count(before.get(worker) ?? ""));
    }, 60_000);

    test("a second server on the port fails as before, with or without --workers", async () => {
      for (const extra of [[], ["--workers", "2"]]) {
        const proc = spawn([...idp_command(), "serve", ...extra], {
          cwd: ROOT,
          env: { ...env, PORT: String(server.port) },
          stdout: "ignore",
          stderr: "pipe",
        });
        const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
        const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
        clearTimeout(timer);
        expect(code).toBe(1);
        expect(stderr).toContain(`error: 127.0.0.1:${server.port} is already in use`);
      }
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    }, 45_000);

    test("a worker killed with -9 is started again; service goes on", async () => {
      const before = worker_pids(server);
      const victim = before.get(2)!;
      process.kill(victim, "SIGKILL");
      await server.wait_for_log((line) => line.msg === "worker restarted" && line.worker === 2, 20_000);
      const after = worker_pids(server);
      expect(after.get(2)).not.toBe(victim);
      expect(after.get(1)).toBe(before.get(1)!);
      expect(alive(after.get(2)!)).toBe(true);
      const seen = await eventually(async () => {
        const workers = await scrape_workers(server.url, 10);
        return workers.size === 2 ? workers : undefined;
      });
      expect(seen.size).toBe(2);
      const result = await get_code(server.url, client, PASSWORD);
      expect((await redeem(server.url, client, result.code, result.pkce.verifier)).status).toBe(200);
    }, 45_000);

    test("SIGTERM to the primary: every worker drains and exits, the primary exits 0, nothing is left", async () => {
      const pids = [...worker_pids(server).values()];
      expect(pids.every(alive)).toBe(true);
      expect(await server.signal("SIGTERM")).toBe(0);
      await until(() => (pids.every((pid) => !alive(pid)) ? true : undefined), 10_000, "every worker gone");
      expect(server.logs().filter((line) => line.msg === "stopped").length).toBeGreaterThanOrEqual(2);
      // The port is free again for a single server.
      const single = await spawn_server({ ...env, IDP_WORKERS: "1" }, { port: server.port });
      expect((await fetch(`${single.url}/healthz`)).status).toBe(200);
      expect(await single.signal("SIGTERM")).toBe(0);
    }, 45_000);
  });
}

workers_suite("a SQLite file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "idp-workers-"));
  return { url: `sqlite:${join(dir, "idp.sqlite")}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
});

if (await use_postgres()) workers_suite("PostgreSQL", create_temp_database);

describe("--workers refuses what cannot work", () => {
  const run = async (argv: string[], env: Record<string, string>) => {
    let stderr = "";
    const stop = new AbortController();
    stop.abort();
    const code = await run_cli(argv, { stdin: "", stdout: () => {}, stderr: (s) => void (stderr += s), env, signal: stop.signal });
    return { code, stderr };
  };

  test("sqlite::memory: (each worker would have its own database) and a bad count, naming the setting", async () => {
    const memory = await run(["serve", "--workers", "2", "--port", String(await free_port())], { DATABASE_URL: "sqlite::memory:" });
    expect(memory.code).toBe(1);
    expect(memory.stderr).toContain("--workers (IDP_WORKERS) needs a database the workers share");
    const bad = await run(["serve", "--port", String(await free_port())], { DATABASE_URL: "sqlite::memory:", IDP_WORKERS: "many" });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("workers (IDP_WORKERS): must be a whole number from 1 to 1024, or auto (one per core)");
    const zero = await run(["serve", "--workers", "0"], { DATABASE_URL: "sqlite::memory:" });
    expect(zero.code).toBe(1);
    expect(zero.stderr).toContain("workers (IDP_WORKERS)");
  });

  test("IDP_WORKER is not for operators: a malformed one is refused", async () => {
    const result = await cli(["serve"], { ...base_env("sqlite::memory:"), IDP_WORKER: "yes" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("IDP_WORKER is set by `idp serve --workers` for its workers");
  }, 20_000);
});

describe("the pieces", () => {
  test("auto is one worker per core; a number is itself", () => {
    expect(worker_count("auto")).toBe(availableParallelism());
    expect(worker_count(3)).toBe(3);
    expect(worker_role({})).toBeNull();
    expect(worker_role({ IDP_WORKER: JSON.stringify({ index: 2, count: 2, primary: 10, port: 3000 }) })).toEqual({ index: 2, count: 2, primary: 10, port: 3000 });
    expect(() => worker_role({ IDP_WORKER: JSON.stringify({ index: 3, count: 2, primary: 10, port: 3000 }) })).toThrow("IDP_WORKER is set by");
  });

  test('a worker\'s metrics: every sample carries worker="k", with or without labels of its own; comments untouched', () => {
    const metrics = new Metrics();
    metrics.label_every_sample("worker", "2");
    metrics.request("/token", "POST", 200, 0.003);
    metrics.login("success");
    const lines = metrics.render().trimEnd().split("\n");
    const samples = lines.filter((line) => !line.startsWith("#"));
    expect(samples.length).toBeGreaterThan(10);
    for (const line of samples) expect(line).toMatch(/^[a-z_]+\{worker="2"(,[a-z_]+="[^"]*")*\} [0-9.e+-]+$/);
    expect(samples).toContain('idp_http_requests_total{worker="2",route="/token",method="POST",status="200"} 1');
    expect(samples).toContain('idp_mail_sent_total{worker="2"} 0');
    expect(lines.filter((line) => line.startsWith("# TYPE")).every((line) => !line.includes("worker"))).toBe(true);
  });
});
