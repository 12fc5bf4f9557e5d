// `idp serve --workers N` on all cores (issue 21): the session flow against our server with 1
// and then 2 workers (alternating between rounds), nothing pinned: the server's processes and the
// flow driver share the machine's cores, as they would on a real box with a load balancer in
// front. Reports flows/s and the server's CPU per flow, the primary and every worker together
// (utime + stime from /proc, bench/oidc/proc.ts tree_cpu_seconds), and the ratios 2 ÷ 1.
//
//   node_modules/.bin/bun run bench/oidc/workers.ts [--rounds 3] [--seconds 10] [--warmup 3]
//       [--concurrency 8] [--workers 1,2] [--quiet-wait 10] [--db sqlite|postgres]
//                                                                    # or: npm run bench -- workers
//
// --db postgres: a fresh database on TEST_DATABASE_URL's server (default
// postgres://postgres@127.0.0.1:5432/test) for each run, dropped after it. 8 browsers by default
// (the driver signs them in 8 at a time: the login throttle refuses more than 10 sign-ins of one
// user from one address in flight).
//
// Prints a Markdown section for bench/RESULTS.md ("All cores") on stdout.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { machine_line } from "../http/machine.ts";
import { machine_busy_seconds, machine_load } from "../http/wrk.ts";
import type { DriverInput, DriverResult } from "./driver.ts";
import { process_tree } from "./proc.ts";
import { create_temp_database } from "../../tests/store/pg.ts";
import { start_ours, stop } from "./servers.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    concurrency: { type: "string", default: "8" },
    workers: { type: "string", default: "1,2" },
    "quiet-wait": { type: "string", default: "10" },
    client: { type: "string", default: "fetch" },
    db: { type: "string", default: "sqlite" },
    // Pinning (taskset lists, e.g. 0 or 0,1): the server's processes (the primary's affinity
    // passes to its workers) and the driver. `--server-cpu 0 --driver-cpu 1` runs 1 and 2 workers
    // on the same single core: equal CPU, so CPU per flow shows what the second process costs
    // (locks, waits, duplicated caches) without the scheduler sharing 2 cores among 3 processes.
    "server-cpu": { type: "string" },
    "driver-cpu": { type: "string" },
  },
});
const rounds = Number(args.rounds);
const seconds = Number(args.seconds);
const warmup = Number(args.warmup);
const concurrency = Number(args.concurrency);
const counts = args.workers!.split(",").map(Number);

type Measure = { flows_per_s: number; cpu_ms_per_flow: number; server_cores: number; driver_cores: number; others_cores: number; p50_ms: number; p99_ms: number; errors: number };

const load_avg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

async function wait_for_quiet(limit: number): Promise<number> {
  const deadline = Date.now() + limit * 1000;
  let load = await machine_load(500);
  while (load > 0.15 && Date.now() < deadline) load = await machine_load(1000);
  return load;
}

/** Waits until the primary has `n` workers and the port answers (each worker listens before the primary reports ready). */
async function wait_workers(pid: number, n: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  // The primary and its n workers; with n = 1 the primary serves itself (no worker).
  const want = n === 1 ? 1 : n + 1;
  while (process_tree(pid).length < want) {
    if (Date.now() > deadline) throw new Error(`${n} workers did not start`);
    await Bun.sleep(100);
  }
  // The last worker to start still loads its modules and keys: give it time to listen.
  await Bun.sleep(2000);
}

async function run(n: number, port: number): Promise<Measure> {
  const pg = args.db === "postgres" ? await create_temp_database() : null;
  const running = await start_ours(port, args["server-cpu"], { env: { IDP_WORKERS: String(n), ...(pg ? { DATABASE_URL: pg.url } : {}) } });
  try {
    await wait_workers(running.pid, n);
    await wait_for_quiet(Number(args["quiet-wait"]));
    const input: DriverInput = { target: running.target, kind: "session", concurrency, seconds, warmup, server_pid: running.pid, client: args.client!, server_tree: true };
    const busy0 = machine_busy_seconds();
    const t0 = performance.now();
    const pin = args["driver-cpu"] === undefined ? [] : ["taskset", "-c", args["driver-cpu"]];
    const proc = Bun.spawn([...pin, process.execPath, join(import.meta.dir, "driver.ts"), JSON.stringify(input)], { stdout: "pipe", stderr: "inherit" });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    if (code !== 0) throw new Error(`driver exited ${code}: ${out}`);
    const wall = (performance.now() - t0) / 1000;
    const r = JSON.parse(out.trim().split("\n").pop()!) as DriverResult;
    const driver_total = Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1e6;
    return {
      flows_per_s: r.flows_per_s,
      cpu_ms_per_flow: (r.server_cpu_s / r.flows) * 1000,
      server_cores: r.server_cpu_s / r.seconds,
      driver_cores: r.driver_cpu_s / r.seconds,
      // Approximate: the whole driver run (warm-up included) against the whole wall time.
      others_cores: Math.max(0, (machine_busy_seconds() - busy0 - driver_total) / wall - r.server_cpu_s / r.seconds),
      p50_ms: r.p50_ms,
      p99_ms: r.p99_ms,
      errors: r.errors,
    };
  } finally {
    await stop(running);
    await pg?.drop();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function pinning(): string {
  const server = args["server-cpu"],
    driver = args["driver-cpu"];
  if (server === undefined && driver === undefined) return "nothing pinned: server and driver share the cores";
  return `server's processes on CPU ${server ?? "any"}, driver on CPU ${driver ?? "any"} (taskset)`;
}

const machine = machine_line();
const load_before = load_avg();
console.error(machine);
console.error(
  `${args.db}: ${rounds} rounds × workers ${counts.join("/")}, session flow, ${concurrency} browsers, ${seconds} s each (warm-up ${warmup} s), ${pinning()}; load average ${load_before}`,
);
const results = new Map<number, Measure[]>();
let port = 3700;
for (let round = 0; round < rounds; round++) {
  const order = counts.map((_, i) => counts[(i + round) % counts.length]!);
  for (const n of order) {
    const m = await run(n, port++);
    results.set(n, [...(results.get(n) ?? []), m]);
    console.error(
      `  round ${round + 1} workers ${n}: ${m.flows_per_s.toFixed(0)} flows/s, ${m.cpu_ms_per_flow.toFixed(2)} ms server CPU per flow, server ${m.server_cores.toFixed(2)} cores, driver ${m.driver_cores.toFixed(2)}, others ${m.others_cores.toFixed(2)}, p50 ${m.p50_ms.toFixed(1)} ms, p99 ${m.p99_ms.toFixed(1)} ms${m.errors ? `, ERRORS ${m.errors}` : ""}`,
    );
  }
}

const base = results.get(counts[0]!)!;
const lines = [
  `### idp serve --workers N, session flow, ${args.db === "postgres" ? "PostgreSQL" : "SQLite file"} (${new Date().toISOString().slice(0, 10)})`,
  "",
  `${machine}. Bun ${Bun.version}. ${rounds} rounds, ${seconds} s each after ${warmup} s warm-up, ${concurrency} signed-in browsers (bench/oidc/driver.ts, Bun fetch), ${pinning()}. Load average ${load_before} → ${load_avg()}.`,
  "",
  "| workers | flows/s (median) | ratio | server CPU ms per flow (all processes) | ratio | server cores | driver cores | others cores | p50 ms | p99 ms | rounds (flows/s) |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
];
for (const n of counts) {
  const ms = results.get(n)!;
  const rate = median(ms.map((m) => m.flows_per_s));
  const cpu = median(ms.map((m) => m.cpu_ms_per_flow));
  const rate0 = median(base.map((m) => m.flows_per_s));
  const cpu0 = median(base.map((m) => m.cpu_ms_per_flow));
  lines.push(
    `| ${n} | ${rate.toFixed(0)} | ${(rate / rate0).toFixed(2)} | ${cpu.toFixed(2)} | ${(cpu / cpu0).toFixed(2)} | ${median(ms.map((m) => m.server_cores)).toFixed(2)} | ${median(ms.map((m) => m.driver_cores)).toFixed(2)} | ${median(ms.map((m) => m.others_cores)).toFixed(2)} | ${median(ms.map((m) => m.p50_ms)).toFixed(1)} | ${median(ms.map((m) => m.p99_ms)).toFixed(1)} | ${ms.map((m) => m.flows_per_s.toFixed(0)).join(", ")} |`,
  );
}
console.log(lines.join("\n"));
