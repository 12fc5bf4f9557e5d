// Our provider on Deno against the same provider on Bun (issue 28): the session flow,
// client_credentials and /userinfo against `bun main.ts serve` and `deno run <permissions>
// main.ts serve` (bench/oidc/servers.ts), each on a fresh SQLite file with the same settings,
// alternating within each round:
//
//   node_modules/.bin/bun run bench/oidc/deno.ts [--rounds 3] [--seconds 8] [--warmup 2]
//       [--connections 64] [--concurrency 8] [--server-cpu 0] [--load-cpu 1] [--quiet-wait 10]
//       [--profile DIR [--profile-seconds 10]]                    # or: npm run bench -- deno
//
// Reports per case the medians of the rounds: requests or flows per second and per CPU-second
// of the server process (utime + stime of every thread, /proc/<pid>/stat), the CPU per request
// or flow and its ratio Deno ÷ Bun (the issue's goal: at most 1.3), RSS at start, its peak under
// load and VmHWM at the end. Prints a Markdown section for bench/RESULTS.md ("Deno and Bun").
//
// --profile DIR: instead, one Deno server under the session flow for --profile-seconds, profiled
// through the V8 inspector (`deno run --inspect`, Profiler.start/stop over the DevTools
// protocol: `deno run` has no --cpu-prof); writes DIR/deno.cpuprofile (Chrome DevTools) and
// prints the functions with the most self time and the share of the samples by source area.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cpu_categories } from "../http/cpu_profile.ts";
import { machine_line } from "../http/machine.ts";
import { cpu_seconds, machine_busy_seconds, machine_load, parse_wrk, pinned } from "../http/wrk.ts";
import type { DriverInput, DriverResult } from "./driver.ts";
import { Browser, basic, endpoints, type Endpoints, type Target } from "./flows.ts";
import { fetch_client } from "./http.ts";
import { rss_kib } from "./proc.ts";
import { start_ours, stop, type Running } from "./servers.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "64" },
    concurrency: { type: "string", default: "8" },
    "server-cpu": { type: "string", default: "0" },
    "load-cpu": { type: "string", default: "1" },
    "quiet-wait": { type: "string", default: "10" },
    profile: { type: "string" },
    "profile-seconds": { type: "string", default: "10" },
  },
});
const rounds = Number(args.rounds);
const seconds = Number(args.seconds);
const warmup = Number(args.warmup);
const connections = Number(args.connections);
const concurrency = Number(args.concurrency);
const SERVER_CPU = args["server-cpu"];
const LOAD_CPU = args["load-cpu"];
const LUA = join(import.meta.dir, "lua");

type Runtime = "bun" | "deno";
const RUNTIMES: Runtime[] = ["bun", "deno"];
const CASES = ["session", "client_credentials", "userinfo"] as const;
type Case = (typeof CASES)[number];
type Measure = { rate: number; cpu_us: number; server_cores: number; others_cores: number; p50_ms: number; p99_ms: number; errors: number; rss_peak_kib: number };
type Memory = { start_kib: number; after_kib: number; hwm_kib: number };

const load_avg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function wait_for_quiet(limit: number): Promise<void> {
  const deadline = Date.now() + limit * 1000;
  let load = await machine_load(500);
  while (load > 0.15 && Date.now() < deadline) load = await machine_load(1000);
}

/** The session flow with `concurrency` signed-in browsers (driver.ts, its own process on the load core). */
async function run_session(target: Target, pid: number, secs: number, warm: number): Promise<Measure> {
  const input: DriverInput = { target, kind: "session", concurrency, seconds: secs, warmup: warm, server_pid: pid, client: "fetch" };
  const busy0 = machine_busy_seconds();
  const t0 = performance.now();
  const proc = Bun.spawn(pinned(LOAD_CPU, [process.execPath, join(import.meta.dir, "driver.ts"), JSON.stringify(input)]), { stdout: "pipe", stderr: "inherit" });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  if (code !== 0) throw new Error(`driver exited ${code}: ${out}`);
  const wall = (performance.now() - t0) / 1000;
  const r = JSON.parse(out.trim().split("\n").pop()!) as DriverResult;
  const driver_total = Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1e6;
  return {
    rate: r.flows_per_s,
    cpu_us: (r.server_cpu_s / r.flows) * 1e6,
    server_cores: r.server_cpu_s / r.seconds,
    others_cores: Math.max(0, (machine_busy_seconds() - busy0 - driver_total) / wall - r.server_cpu_s / r.seconds),
    p50_ms: r.p50_ms,
    p99_ms: r.p99_ms,
    errors: r.errors,
    rss_peak_kib: r.rss_peak_kib,
  };
}

/** wrk with a lua script of bench/oidc/lua against `url`; the server's CPU and RSS over the run. */
async function run_wrk(url: string, script: string, env: Record<string, string>, pid: number, secs: number): Promise<Measure> {
  const cpu0 = cpu_seconds(pid);
  const busy0 = machine_busy_seconds();
  let peak = rss_kib(pid).rss;
  const sampler = setInterval(() => (peak = Math.max(peak, rss_kib(pid).rss)), 100);
  const t0 = performance.now();
  const proc = Bun.spawn(pinned(LOAD_CPU, ["wrk", "-t1", `-c${connections}`, `-d${secs}s`, "--latency", "-s", join(LUA, script), url]), {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearInterval(sampler);
  if (code !== 0) throw new Error(`wrk exited ${code}: ${err}`);
  const wall = (performance.now() - t0) / 1000;
  const load = parse_wrk(out);
  const server_cpu_s = cpu_seconds(pid) - cpu0;
  const wrk_cpu = Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1e6;
  return {
    rate: load.rps,
    cpu_us: (server_cpu_s / (load.rps * wall)) * 1e6,
    server_cores: server_cpu_s / wall,
    others_cores: Math.max(0, (machine_busy_seconds() - busy0 - server_cpu_s - wrk_cpu) / wall),
    p50_ms: load.p50_ms,
    p99_ms: load.p99_ms,
    errors: load.errors + load.non_2xx,
    rss_peak_kib: peak,
  };
}

/** Checks one answer of a wrk case before loading it: a token from /token, the user's claims from /userinfo. */
async function check(name: Case, ep: Endpoints, target: Target, token: string): Promise<void> {
  const send = fetch_client();
  const reply =
    name === "client_credentials"
      ? await send("POST", ep.token, { authorization: `Basic ${basic(target)}`, "content-type": "application/x-www-form-urlencoded" }, "grant_type=client_credentials")
      : await send("GET", ep.userinfo, { authorization: `Bearer ${token}` });
  const body = reply.status === 200 ? (JSON.parse(reply.text) as Record<string, unknown>) : {};
  if (typeof (name === "client_credentials" ? body.access_token : body.sub) !== "string") throw new Error(`${target.name} ${name}: ${reply.status} ${reply.text.slice(0, 300)}`);
}

async function run_case(name: Case, running: Running, ep: Endpoints): Promise<Measure> {
  const { target, pid } = running;
  if (name === "session") {
    await wait_for_quiet(Number(args["quiet-wait"]));
    return run_session(target, pid, seconds, warmup);
  }
  const token = name === "userinfo" ? (await new Browser(fetch_client(), target, ep).flow(true)).access_token : "";
  await check(name, ep, target, token);
  const url = name === "client_credentials" ? ep.token : ep.userinfo;
  const script = name === "client_credentials" ? "client_credentials.lua" : "userinfo.lua";
  const env = { BENCH_BASIC: basic(target), BENCH_TOKEN: token };
  if (warmup > 0) await run_wrk(url, script, env, pid, warmup);
  await wait_for_quiet(Number(args["quiet-wait"]));
  return run_wrk(url, script, env, pid, seconds);
}

/** Calls `method` of the V8 inspector at `ws` (DevTools protocol) and resolves with its result. */
function inspector(ws: WebSocket): (method: string, params?: object) => Promise<Record<string, unknown>> {
  let next = 1;
  const waiting = new Map<number, (result: Record<string, unknown>) => void>();
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? {});
  });
  return (method, params = {}) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
}

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number };

/** The `top` functions by self samples (idle left out) of a .cpuprofile, as Markdown rows. */
function hot_functions(profile: { nodes: ProfileNode[]; samples: number[] }, top: number, cpu_us: number): string[] {
  const by_id = new Map(profile.nodes.map((n) => [n.id, n]));
  const count = new Map<string, number>();
  let busy = 0;
  for (const id of profile.samples) {
    const { functionName, url, lineNumber } = by_id.get(id)!.callFrame;
    if (functionName === "(idle)" || functionName === "(program)") continue;
    const where = url === "" ? "" : ` ${url.replace(/^file:\/\/.*?\/(src|node_modules|main\.ts)/, "$1")}:${lineNumber + 1}`;
    const key = `${functionName || "(anonymous)"}${where}`;
    count.set(key, (count.get(key) ?? 0) + 1);
    busy++;
  }
  return [...count.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, n]) => `| \`${name}\` | ${((n / busy) * 100).toFixed(1)} % | ${((n / busy) * cpu_us).toFixed(0)} |`);
}

/** One Deno server under the session flow, profiled through the inspector over the measured seconds. */
async function profile(out: string): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const inspect_port = 9339;
  const running = await start_ours(3490, SERVER_CPU, { runtime: "deno", deno_flags: [`--inspect=127.0.0.1:${inspect_port}`] });
  try {
    const targets = (await (await fetch(`http://127.0.0.1:${inspect_port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
    const ws = new WebSocket(targets[0]!.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      ws.addEventListener("open", resolve);
      ws.addEventListener("error", reject);
    });
    const call = inspector(ws);
    await call("Profiler.enable");
    await call("Profiler.setSamplingInterval", { interval: 250 });
    await run_session(running.target, running.pid, 2, 1); // sign-ins and a warm-up, not profiled
    await call("Profiler.start");
    const m = await run_session(running.target, running.pid, Number(args["profile-seconds"]), 0);
    const { profile } = (await call("Profiler.stop")) as { profile: { nodes: ProfileNode[]; samples: number[] } };
    ws.close();
    writeFileSync(join(out, "deno.cpuprofile"), JSON.stringify(profile));
    console.log(`session flow, ${concurrency} browsers, Deno under the inspector's profiler: ${m.rate.toFixed(0)} flows/s, ${m.cpu_us.toFixed(0)} µs server CPU per flow`);
    console.log(`\n| function (self time) | share of busy samples | µs per flow |\n| --- | ---: | ---: |`);
    console.log(hot_functions(profile, 25, m.cpu_us).join("\n"));
    console.log(`\n| where (first frame of ours on the stack) | share of busy samples | µs per flow |\n| --- | ---: | ---: |`);
    for (const { category, share } of cpu_categories(out)) console.log(`| ${category} | ${(share * 100).toFixed(1)} % | ${(share * m.cpu_us).toFixed(0)} |`);
    console.log(`\nfull profile: ${join(out, "deno.cpuprofile")}`);
  } finally {
    await stop(running);
  }
}

if (args.profile !== undefined) {
  await profile(args.profile);
  process.exit(0);
}

const machine = machine_line();
const load_before = load_avg();
const deno_version = Bun.spawnSync([join(import.meta.dir, "../../node_modules/.bin/deno"), "--version"])
  .stdout.toString()
  .split("\n")[0]!
  .trim();
const pinning = `server on CPU ${SERVER_CPU}, wrk and the driver on CPU ${LOAD_CPU} (taskset)`;
console.error(machine);
console.error(
  `Bun ${Bun.version}, ${deno_version}; ${rounds} rounds × bun/deno × ${CASES.join("/")}, ${seconds} s each (warm-up ${warmup} s), ${pinning}; load average ${load_before}`,
);

const results = new Map<string, Measure[]>(); // `${runtime} ${case}` → one per round
const memory = new Map<Runtime, Memory[]>();
let port = 3500;
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? RUNTIMES : [...RUNTIMES].reverse();
  for (const runtime of order) {
    const running = await start_ours(port++, SERVER_CPU, { runtime });
    try {
      const ep = await endpoints(fetch_client(), running.target.base);
      await Bun.sleep(500);
      const start_kib = rss_kib(running.pid).rss;
      for (const name of CASES) {
        const m = await run_case(name, running, ep);
        results.set(`${runtime} ${name}`, [...(results.get(`${runtime} ${name}`) ?? []), m]);
        console.error(
          `  round ${round + 1} ${runtime.padEnd(4)} ${name.padEnd(18)} ${m.rate.toFixed(0).padStart(6)}/s  ${m.cpu_us.toFixed(0).padStart(5)} µs CPU each  server ${m.server_cores.toFixed(2)} others ${m.others_cores.toFixed(2)}  p50 ${m.p50_ms.toFixed(1)} ms  RSS peak ${(m.rss_peak_kib / 1024).toFixed(0)} MiB${m.errors ? `  ERRORS ${m.errors}` : ""}`,
        );
      }
      await Bun.sleep(2000);
      const after = rss_kib(running.pid);
      memory.set(runtime, [...(memory.get(runtime) ?? []), { start_kib, after_kib: after.rss, hwm_kib: after.hwm }]);
    } finally {
      await stop(running);
    }
  }
}

const mib = (kib: number) => (kib / 1024).toFixed(0);
const lines = [
  `#### Deno and Bun, ${new Date().toISOString().slice(0, 10)} (\`bench/oidc/deno.ts\`)`,
  "",
  `${machine}. Bun ${Bun.version}, ${deno_version}. ${rounds} rounds, each runtime started fresh per round (order alternating), ${seconds} s per case after ${warmup} s warm-up; session flow with ${concurrency} signed-in browsers (driver.ts, Bun fetch), client_credentials and /userinfo with \`wrk -t1 -c${connections}\`; ${pinning}. Load average ${load_before} → ${load_avg()}.`,
  "",
  "| case | runtime | per s (median) | per CPU-s (median) | server CPU µs each (median) | Deno ÷ Bun CPU | server cores | others cores | p50 ms | p99 ms | RSS peak MiB | rounds (µs each) |",
  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
];
for (const name of CASES) {
  const bun_cpu = median(results.get(`bun ${name}`)!.map((m) => m.cpu_us));
  for (const runtime of RUNTIMES) {
    const ms = results.get(`${runtime} ${name}`)!;
    const cpu = median(ms.map((m) => m.cpu_us));
    lines.push(
      `| ${name} | ${runtime} | ${median(ms.map((m) => m.rate)).toFixed(0)} | ${(1e6 / cpu).toFixed(0)} | ${cpu.toFixed(0)} | ${runtime === "bun" ? "1.00" : (cpu / bun_cpu).toFixed(2)} | ${median(ms.map((m) => m.server_cores)).toFixed(2)} | ${median(ms.map((m) => m.others_cores)).toFixed(2)} | ${median(ms.map((m) => m.p50_ms)).toFixed(1)} | ${median(ms.map((m) => m.p99_ms)).toFixed(1)} | ${mib(median(ms.map((m) => m.rss_peak_kib)))} | ${ms.map((m) => m.cpu_us.toFixed(0)).join(", ")} |`,
    );
  }
}
lines.push("", "| runtime | RSS at start MiB | RSS 2 s after the load MiB | VmHWM MiB |", "| --- | ---: | ---: | ---: |");
for (const runtime of RUNTIMES) {
  const ms = memory.get(runtime)!;
  lines.push(`| ${runtime} | ${mib(median(ms.map((m) => m.start_kib)))} | ${mib(median(ms.map((m) => m.after_kib)))} | ${mib(median(ms.map((m) => m.hwm_kib)))} |`);
}
console.log(lines.join("\n"));
