// What OpenTelemetry tracing costs (issue 32): the session flow (signed-in browsers: /authorize →
// code → /token with an RS256 ID Token → /userinfo) against our server in up to four settings,
// alternating within each round:
//
//   before  a checkout without the tracing code (--before DIR: `git archive <commit> | tar -x -C DIR`,
//           with node_modules linked); left out without --before
//   off     this checkout, no OTEL_* endpoint: the tracing code is not loaded
//   on      this checkout, OTEL_EXPORTER_OTLP_ENDPOINT at a sink in this process (node:http, answers
//           every export 200 and drops it), every trace sampled (the default parentbased_always_on)
//   dropped this checkout, the endpoint set but OTEL_TRACES_SAMPLER=always_off: spans opened and
//           not recorded (what the machinery costs when a sampler says no)
//
//   node_modules/.bin/bun run bench/oidc/tracing.ts [--before DIR] [--rounds 3] [--seconds 10]
//       [--warmup 3] [--concurrency 8] [--server-cpu 0] [--driver-cpu 1] [--modes before,off,on,dropped]
//                                                                    # or: npm run bench -- tracing
//
// Reports flows/s and the server's CPU per flow (utime + stime from /proc, bench/oidc/proc.ts),
// medians of the rounds, and each ratio to the first mode. The exporter's work (batching, JSON,
// HTTP) runs in the server process, so it is in its CPU; the sink's is not. Prints a Markdown
// section for bench/RESULTS.md ("Tracing") on stdout.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { machine_line } from "../http/machine.ts";
import { machine_busy_seconds, machine_load } from "../http/wrk.ts";
import type { DriverInput, DriverResult } from "./driver.ts";
import { start_ours, stop } from "./servers.ts";

const { values: args } = parseArgs({
  options: {
    before: { type: "string" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    concurrency: { type: "string", default: "8" },
    modes: { type: "string" },
    "quiet-wait": { type: "string", default: "10" },
    client: { type: "string", default: "fetch" },
    "server-cpu": { type: "string", default: "0" },
    "driver-cpu": { type: "string", default: "1" },
  },
});
const rounds = Number(args.rounds);
const seconds = Number(args.seconds);
const warmup = Number(args.warmup);
const concurrency = Number(args.concurrency);
type Mode = "before" | "off" | "on" | "dropped";
const modes = (args.modes?.split(",") ?? (args.before === undefined ? ["off", "on", "dropped"] : ["before", "off", "on", "dropped"])) as Mode[];
if (modes.includes("before") && args.before === undefined) throw new Error("--before DIR is needed for the mode before");

// The collector: takes every export, counts spans roughly (bodies), answers 200.
let exports = 0;
let exported_bytes = 0;
const sink = createServer((request, response) => {
  request.on("data", (chunk: Buffer) => void (exported_bytes += chunk.length));
  request.on("end", () => {
    exports++;
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
const sink_url = `http://127.0.0.1:${(sink.address() as { port: number }).port}`;

function env_of(mode: Mode): Record<string, string> {
  if (mode === "on") return { OTEL_EXPORTER_OTLP_ENDPOINT: sink_url };
  if (mode === "dropped") return { OTEL_EXPORTER_OTLP_ENDPOINT: sink_url, OTEL_TRACES_SAMPLER: "always_off" };
  return {};
}

type Measure = { flows_per_s: number; cpu_us_per_flow: number; server_cores: number; others_cores: number; p50_ms: number; p99_ms: number; errors: number; exports: number };

const load_avg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

async function wait_for_quiet(limit: number): Promise<number> {
  const deadline = Date.now() + limit * 1000;
  let load = await machine_load(500);
  while (load > 0.15 && Date.now() < deadline) load = await machine_load(1000);
  return load;
}

async function run(mode: Mode, port: number): Promise<Measure> {
  const running = await start_ours(port, args["server-cpu"], { env: env_of(mode), ...(mode === "before" ? { root: args.before } : {}) });
  try {
    await wait_for_quiet(Number(args["quiet-wait"]));
    const exports0 = exports;
    const input: DriverInput = { target: running.target, kind: "session", concurrency, seconds, warmup, server_pid: running.pid, client: args.client! };
    const busy0 = machine_busy_seconds();
    const t0 = performance.now();
    const pin = args["driver-cpu"] === "" ? [] : ["taskset", "-c", args["driver-cpu"]!];
    const proc = Bun.spawn([...pin, process.execPath, join(import.meta.dir, "driver.ts"), JSON.stringify(input)], { stdout: "pipe", stderr: "inherit" });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    if (code !== 0) throw new Error(`driver exited ${code}: ${out}`);
    const wall = (performance.now() - t0) / 1000;
    const r = JSON.parse(out.trim().split("\n").pop()!) as DriverResult;
    const driver_total = Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1e6;
    return {
      flows_per_s: r.flows_per_s,
      cpu_us_per_flow: (r.server_cpu_s / r.flows) * 1e6,
      server_cores: r.server_cpu_s / r.seconds,
      // Approximate: everything else, the sink in this process included, over the whole driver run.
      others_cores: Math.max(0, (machine_busy_seconds() - busy0 - driver_total) / wall - r.server_cpu_s / r.seconds),
      p50_ms: r.p50_ms,
      p99_ms: r.p99_ms,
      errors: r.errors,
      exports: exports - exports0,
    };
  } finally {
    await stop(running);
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const machine = machine_line();
const load_before = load_avg();
const pinning = `server on CPU ${args["server-cpu"]}, driver on CPU ${args["driver-cpu"]} (taskset)`;
console.error(machine);
console.error(`${rounds} rounds × ${modes.join("/")}, session flow, ${concurrency} browsers, ${seconds} s each (warm-up ${warmup} s), ${pinning}; load average ${load_before}`);
const results = new Map<Mode, Measure[]>();
let port = 3800;
for (let round = 0; round < rounds; round++) {
  const order = modes.map((_, i) => modes[(i + round) % modes.length]!);
  for (const mode of order) {
    const m = await run(mode, port++);
    results.set(mode, [...(results.get(mode) ?? []), m]);
    console.error(
      `  round ${round + 1} ${mode}: ${m.flows_per_s.toFixed(0)} flows/s, ${m.cpu_us_per_flow.toFixed(0)} µs server CPU per flow, server ${m.server_cores.toFixed(2)} cores, others ${m.others_cores.toFixed(2)}, p50 ${m.p50_ms.toFixed(1)} ms, p99 ${m.p99_ms.toFixed(1)} ms, exports ${m.exports}${m.errors ? `, ERRORS ${m.errors}` : ""}`,
    );
  }
}
sink.close();

const base = results.get(modes[0]!)!;
const rate0 = median(base.map((m) => m.flows_per_s));
const cpu0 = median(base.map((m) => m.cpu_us_per_flow));
const lines = [
  `### Tracing, session flow (${new Date().toISOString().slice(0, 10)})`,
  "",
  `${machine}. ${rounds} rounds, ${seconds} s each after ${warmup} s warm-up, ${concurrency} signed-in browsers (bench/oidc/driver.ts, Bun fetch), ${pinning}. Load average ${load_before} → ${load_avg()}. ${exported_bytes > 0 ? `The sink took ${(exported_bytes / 1e6).toFixed(1)} MB of OTLP JSON in all.` : ""}`,
  "",
  "| mode | flows/s (median) | ratio | server CPU µs per flow (median) | ratio | server cores | others cores | p50 ms | p99 ms | rounds (µs per flow) |",
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
];
for (const mode of modes) {
  const ms = results.get(mode)!;
  const rate = median(ms.map((m) => m.flows_per_s));
  const cpu = median(ms.map((m) => m.cpu_us_per_flow));
  lines.push(
    `| ${mode} | ${rate.toFixed(0)} | ${(rate / rate0).toFixed(3)} | ${cpu.toFixed(0)} | ${(cpu / cpu0).toFixed(3)} | ${median(ms.map((m) => m.server_cores)).toFixed(2)} | ${median(ms.map((m) => m.others_cores)).toFixed(2)} | ${median(ms.map((m) => m.p50_ms)).toFixed(1)} | ${median(ms.map((m) => m.p99_ms)).toFixed(1)} | ${ms.map((m) => m.cpu_us_per_flow.toFixed(0)).join(", ")} |`,
  );
}
console.log(lines.join("\n"));
