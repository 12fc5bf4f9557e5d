// OpenID Provider benchmark: ours (bun main.ts serve, durable SQLite) against panva's
// oidc-provider on Node (in-memory adapter), in the same run, alternated.
//
//   bun run bench/oidc/index.ts [--rounds 3] [--seconds 8] [--warmup 2] [--connections 64]
//       [--cases discovery,jwks,client_credentials,introspection,userinfo,session-1,session-8,session-32,first-login-8,first-login-32,dpop-8,device-8]
//       [--servers ours,peer] [--server-cpu 0] [--load-cpu 1] [--client fetch|undici]
//       [--quiet-wait 10] [--json out.json] [--dry-run]
//
// Each round starts each provider fresh (ours on a new SQLite file seeded with the CLI), pinned
// to the server core, and runs every case against it; wrk and the flow driver (driver.ts) are
// pinned to the load core, and so is this script. The table gives the median of the rounds,
// per second and per CPU-second of the server process (/proc/<pid>/stat), which holds steadier
// when other work shares the machine. Without --dry-run the "## OpenID" section of
// bench/RESULTS.md is replaced with this run's tables.
import { argon2_impl, configure_argon2, hash_password, verify_password } from "../../src/platform/passwords.ts";
import { load_config } from "../../src/app/config.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { machine_line } from "../http/machine.ts";
import { cpu_seconds, has, machine_busy_seconds, machine_load, parse_wrk, pinned } from "../http/wrk.ts";
import type { DriverInput, DriverResult } from "./driver.ts";
import { Browser, basic, endpoints, jws_header, type Endpoints, type Target } from "./flows.ts";
import { fetch_client } from "./http.ts";
import { rss_kib } from "./proc.ts";
import { NODE, start_ours, start_peer, stop, type Running } from "./servers.ts";
import { render_section, type Measure } from "./report.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "8" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "64" },
    cases: { type: "string", default: "discovery,jwks,client_credentials,introspection,userinfo,session-1,session-8,session-32,first-login-8,first-login-32,dpop-8,device-8" },
    servers: { type: "string", default: "ours,peer" },
    "server-cpu": { type: "string", default: "0" },
    "load-cpu": { type: "string", default: "1" },
    client: { type: "string", default: "fetch" },
    "quiet-wait": { type: "string", default: "10" },
    json: { type: "string" },
    "dry-run": { type: "boolean", default: false },
  },
});

// This script (and so the driver and wrk it starts) stays off the server's core.
// (The machine line is read before: pinned, nproc would say 1.)
if (process.env.BENCH_OIDC_PINNED !== "1" && has("taskset")) {
  const env = { ...process.env, BENCH_OIDC_PINNED: "1", BENCH_OIDC_MACHINE: machine_line() };
  const child = Bun.spawn(pinned(args["load-cpu"], [process.execPath, ...process.argv.slice(1)]), { env, stdio: ["inherit", "inherit", "inherit"] });
  process.exit(await child.exited);
}

const SERVER_CPU = args["server-cpu"];
const LOAD_CPU = args["load-cpu"];
const rounds = Number(args.rounds);
const seconds = Number(args.seconds);
const warmup = Number(args.warmup);
const connections = Number(args.connections);
const servers = args.servers.split(",") as ("ours" | "peer")[];
const cases = args.cases.split(",");
const LUA = join(import.meta.dir, "lua");

type WrkCase = { kind: "wrk"; path: (ep: Endpoints, base: string) => string; script?: string; needs_token?: boolean };
type FlowCase = { kind: "flow"; flow: "session" | "first-login" | "device" | "dpop"; concurrency: number };
const CASES: Record<string, WrkCase | FlowCase> = {
  discovery: { kind: "wrk", path: (_, base) => `${base}/.well-known/openid-configuration` },
  jwks: { kind: "wrk", path: (ep) => ep.jwks },
  client_credentials: { kind: "wrk", path: (ep) => ep.token, script: "client_credentials.lua" },
  introspection: { kind: "wrk", path: (ep) => ep.introspection, script: "introspect.lua", needs_token: true },
  userinfo: { kind: "wrk", path: (ep) => ep.userinfo, script: "userinfo.lua", needs_token: true },
  "session-1": { kind: "flow", flow: "session", concurrency: 1 },
  "session-8": { kind: "flow", flow: "session", concurrency: 8 },
  "session-32": { kind: "flow", flow: "session", concurrency: 32 },
  "first-login-8": { kind: "flow", flow: "first-login", concurrency: 8 },
  "first-login-32": { kind: "flow", flow: "first-login", concurrency: 32 },
  // RFC 9449, ours only (the peer is not configured for it): the session flow with a DPoP key
  // binding the code (dpop_jkt), the tokens (a proof at /token) and the userinfo call.
  "dpop-1": { kind: "flow", flow: "dpop", concurrency: 1 },
  "dpop-8": { kind: "flow", flow: "dpop", concurrency: 8 },
  // RFC 8628, ours only (the peer is not configured for it): a signed-in browser approves a device.
  "device-1": { kind: "flow", flow: "device", concurrency: 1 },
  "device-8": { kind: "flow", flow: "device", concurrency: 8 },
};
const device_cases = cases.some((name) => (CASES[name] as FlowCase).flow === "device");
for (const c of cases) if (!CASES[c]) throw new Error(`unknown case ${c}: use ${Object.keys(CASES).join(", ")}`);
// Only the wrk cases need wrk: `--servers ours --cases session-8,dpop-8,device-8` runs without it.
if (cases.some((name) => CASES[name]!.kind === "wrk") && !has("wrk")) throw new Error("wrk is not installed (Debian: apt-get install -y wrk)");

const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : "-");

/** Waits (up to `limit` s) until the machine outside this benchmark uses under 15% of a core. */
async function wait_for_quiet(limit: number): Promise<number> {
  const deadline = Date.now() + limit * 1000;
  let load = await machine_load(500);
  while (load > 0.15 && Date.now() < deadline) load = await machine_load(1000);
  return load;
}

/** wrk against `url` with an optional lua script; the server's CPU and RSS over the run. */
async function run_wrk(url: string, script: string | undefined, env: Record<string, string>, pid: number, secs: number): Promise<Measure> {
  const cpu0 = cpu_seconds(pid);
  const busy0 = machine_busy_seconds();
  let peak = rss_kib(pid).rss;
  const sampler = setInterval(() => (peak = Math.max(peak, rss_kib(pid).rss)), 100);
  const t0 = performance.now();
  const command = pinned(LOAD_CPU, ["wrk", "-t1", `-c${connections}`, `-d${secs}s`, "--latency", ...(script ? ["-s", join(LUA, script)] : []), url]);
  const proc = Bun.spawn(command, { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearInterval(sampler);
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}: ${err}`);
  const wall = (performance.now() - t0) / 1000;
  const load = parse_wrk(out);
  const server_cpu_s = cpu_seconds(pid) - cpu0;
  const wrk_cpu = Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1e6;
  const others = Math.max(0, (machine_busy_seconds() - busy0 - server_cpu_s - wrk_cpu) / wall);
  return {
    rate: load.rps,
    per_cpu: (load.rps * wall) / server_cpu_s,
    p50_ms: load.p50_ms,
    p99_ms: load.p99_ms,
    server_cpu: server_cpu_s / wall,
    others,
    errors: load.errors + load.non_2xx,
    first_error: load.non_2xx > 0 ? `${load.non_2xx} non-2xx answers` : load.errors > 0 ? `${load.errors} socket errors` : null,
    rss_peak_kib: peak,
  };
}

async function run_flows(target: Target, c: FlowCase, pid: number): Promise<Measure> {
  const input: DriverInput = { target, kind: c.flow, concurrency: c.concurrency, seconds, warmup, server_pid: pid, client: args.client };
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
    per_cpu: r.flows / r.server_cpu_s,
    p50_ms: r.p50_ms,
    p99_ms: r.p99_ms,
    server_cpu: r.server_cpu_s / r.seconds,
    // Approximate: the whole driver run (warm-up included) against the whole wall time.
    others: Math.max(0, (machine_busy_seconds() - busy0 - driver_total) / wall - r.server_cpu_s / r.seconds),
    driver_cpu: r.driver_cpu_s / r.seconds,
    errors: r.errors,
    first_error: r.first_error,
    rss_peak_kib: r.rss_peak_kib,
  };
}

/** An access token with openid (a complete flow), for /userinfo and /introspection. */
async function user_access_token(target: Target, ep: Endpoints): Promise<string> {
  const result = await new Browser(fetch_client(), target, ep).flow(true);
  if (jws_header(result.id_token).alg !== "RS256") throw new Error(`${target.name} ID Token is not RS256`);
  return result.access_token;
}

/** Checks what a wrk case will load answers as it should, once, before loading it. */
async function check_case(name: string, url: string, target: Target, token: string): Promise<void> {
  const send = fetch_client();
  const auth = { authorization: `Basic ${basic(target)}`, "content-type": "application/x-www-form-urlencoded" };
  const reply =
    name === "client_credentials"
      ? await send("POST", url, auth, "grant_type=client_credentials")
      : name === "introspection"
        ? await send("POST", url, auth, `token=${token}`)
        : name === "userinfo"
          ? await send("GET", url, { authorization: `Bearer ${token}` })
          : await send("GET", url, {});
  const ok =
    reply.status === 200 &&
    (name === "client_credentials"
      ? typeof JSON.parse(reply.text).access_token === "string"
      : name === "introspection"
        ? JSON.parse(reply.text).active === true
        : name === "userinfo"
          ? typeof JSON.parse(reply.text).sub === "string"
          : reply.text.length > 0);
  if (!ok) throw new Error(`${target.name} ${name}: ${reply.status} ${reply.text.slice(0, 300)}`);
}

export type MemoryLine = { start_kib: number; after_kib: number; hwm_kib: number };
const results = new Map<string, Measure[]>(); // `${server} ${case}` → one per round
const memory = new Map<string, MemoryLine[]>();

/** A bench dependency's version; "-" when bench/node_modules lacks it (a run of ours alone needs neither). */
function bench_version(name: string): string {
  try {
    return JSON.parse(readFileSync(join(import.meta.dir, `../node_modules/${name}/package.json`), "utf8")).version as string;
  } catch {
    if (servers.includes("peer") || (name === "undici" && args.client === "undici")) throw new Error(`bench/node_modules has no ${name}: cd bench && npm install`);
    return "-";
  }
}

const versions = {
  bun: Bun.version,
  node: Bun.spawnSync([NODE, "--version"]).stdout.toString().trim(),
  oidc_provider: bench_version("oidc-provider"),
  undici: bench_version("undici"),
};

/**
 * CPU ms (every thread of this process: the verification may run on a worker) of one argon2id
 * verification at our (OWASP) parameters through the provider's own code, best of 5.
 */
async function argon2_ms(): Promise<number> {
  // The implementation the server would use (IDP_ARGON2_IMPL through the config).
  configure_argon2(load_config().argon2.impl);
  const hash = await hash_password("correct horse battery staple", { memory_kib: 19456, time_cost: 2 });
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const c0 = process.cpuUsage();
    await verify_password("correct horse battery staple", hash);
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  return best;
}

const machine = process.env.BENCH_OIDC_MACHINE ?? machine_line();
const load_avg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const load_before = load_avg();
const argon2 = await argon2_ms();
console.log(machine);
console.log(
  `Bun ${versions.bun}, Node ${versions.node}, oidc-provider ${versions.oidc_provider}, driver client ${args.client}${args.client === "undici" ? ` (undici ${versions.undici})` : ""}`,
);
console.log(`argon2id verify (m=19456 KiB, t=2, p=1, ${argon2_impl.name}): ${argon2.toFixed(1)} ms CPU`);
console.log(
  `${rounds} rounds × ${servers.join("/")} × ${cases.length} cases, ${seconds} s each (warm-up ${warmup} s), server on CPU ${SERVER_CPU}, load on CPU ${LOAD_CPU}; load average ${load_before}`,
);

let port = 3400;
for (let round = 0; round < rounds; round++) {
  const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
  for (const server of order) {
    const running: Running = server === "ours" ? await start_ours(port++, SERVER_CPU, { device: device_cases }) : await start_peer(port++, SERVER_CPU);
    try {
      const { target, pid } = running;
      const ep = await endpoints(fetch_client(), target.base);
      await Bun.sleep(500);
      const start_kib = rss_kib(pid).rss;
      let token = "";
      for (const name of cases) {
        const c = CASES[name]!;
        if (server === "peer" && c.kind === "flow" && (c.flow === "device" || c.flow === "dpop")) continue;
        let m: Measure;
        if (c.kind === "wrk") {
          const url = c.path(ep, target.base);
          // A fresh token each time: the peer's memory store is an LRU of 1,000 entries.
          if (c.needs_token) token = await user_access_token(target, ep);
          await check_case(name, url, target, token);
          const env = { BENCH_BASIC: basic(target), BENCH_TOKEN: token };
          if (warmup > 0) await run_wrk(url, c.script, env, pid, warmup);
          await wait_for_quiet(Number(args["quiet-wait"]));
          m = await run_wrk(url, c.script, env, pid, seconds);
        } else {
          await wait_for_quiet(Number(args["quiet-wait"]));
          m = await run_flows(target, c, pid);
        }
        const key = `${server} ${name}`;
        results.set(key, [...(results.get(key) ?? []), m]);
        const unit = c.kind === "wrk" ? "req/s" : "flows/s";
        console.log(
          `  round ${round + 1} ${server.padEnd(4)} ${name.padEnd(18)} ${m.rate.toFixed(0).padStart(7)} ${unit.padEnd(7)} ${m.per_cpu.toFixed(0).padStart(7)} per CPU-s  p50 ${Number(m.p50_ms).toFixed(1)} ms  p99 ${Number(m.p99_ms).toFixed(1)} ms  server ${pct(m.server_cpu)}  others ${pct(m.others)}${m.driver_cpu !== undefined ? `  driver ${pct(m.driver_cpu)}` : ""}  RSS peak ${(m.rss_peak_kib / 1024).toFixed(0)} MiB${m.errors > 0 ? `  ERRORS ${m.errors}: ${m.first_error}` : ""}`,
        );
      }
      await Bun.sleep(2000);
      const after = rss_kib(pid);
      memory.set(server, [...(memory.get(server) ?? []), { start_kib, after_kib: after.rss, hwm_kib: after.hwm }]);
    } finally {
      await stop(running);
    }
  }
}

const section = render_section({
  date: new Date().toISOString().slice(0, 10),
  machine,
  versions,
  client: args.client,
  argon2_ms: argon2,
  argon2_impl: argon2_impl.name,
  load: `${load_before} → ${load_avg()}`,
  options: { rounds, seconds, warmup, connections },
  cases: cases.map((name) => ({ name, kind: CASES[name]!.kind, concurrency: (CASES[name] as FlowCase).concurrency })),
  results,
  memory,
});
console.log(`\n${section}`);
if (args.json)
  await Bun.write(
    args.json,
    JSON.stringify({ machine, versions, argon2_ms: argon2, options: args, results: Object.fromEntries(results), memory: Object.fromEntries(memory) }, null, 2),
  );
if (!args["dry-run"]) write_results(join(import.meta.dir, "../RESULTS.md"), section);

/**
 * Replaces the measured part of the "## OpenID" section (between its markers), keeping the notes
 * written around it; adds the section at the end when there is none.
 */
function write_results(path: string, section: string): void {
  const BEGIN = "<!-- bench/oidc: begin generated -->";
  const END = "<!-- bench/oidc: end generated -->";
  const current = readFileSync(path, "utf8");
  const generated = `${BEGIN}\n${section.trim()}\n${END}`;
  const start = current.indexOf("\n## OpenID");
  const b = current.indexOf(BEGIN);
  const e = current.indexOf(END);
  let next: string;
  if (start !== -1 && b > start && e > b) next = current.slice(0, b) + generated + current.slice(e + END.length);
  else if (start === -1) next = `${current.trimEnd()}\n\n## OpenID Provider\n\n${generated}\n`;
  else throw new Error(`${path}: the ## OpenID section has lost its markers (${BEGIN} ... ${END}); put them back around the tables`);
  writeFileSync(path, next);
  console.log(`\nwritten to ${path} (## OpenID)`);
}
