// CPU profile of our provider under one bench/oidc case:
//   bun run bench/oidc/profile.ts [--case session-8] [--seconds 10] [--out /tmp/idp-profile] [--top 25] [--fast-hash]
// Starts ours with `bun --cpu-prof` (pinned to CPU 0), loads it from CPU 1 with the same wrk
// script or flow driver as index.ts, stops it (SIGTERM: the profile is written at exit) and
// prints the functions with the most self time from Bun's markdown summary, then the share of the
// busy samples (and µs per flow) by the area of the source each sampled stack is in.
import { cpu_categories, cpu_prof_flags, print_hot_functions } from "../http/cpu_profile.ts";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cpu_seconds, pinned } from "../http/wrk.ts";
import type { DriverInput, DriverResult } from "./driver.ts";
import { Browser, basic, endpoints } from "./flows.ts";
import { fetch_client } from "./http.ts";
import { start_ours, stop } from "./servers.ts";

const { values: args } = parseArgs({
  options: {
    case: { type: "string", default: "session-8" },
    seconds: { type: "string", default: "10" },
    interval: { type: "string", default: "250" },
    out: { type: "string", default: "/tmp/idp-profile" },
    top: { type: "string", default: "25" },
    // The cheapest argon2id the config allows (1 MiB, t=1): what a first login costs besides the hash.
    "fast-hash": { type: "boolean", default: false },
  },
});

const WRK: Record<string, { script?: string; path: "token" | "introspection" | "userinfo" | "jwks" | "discovery" }> = {
  discovery: { path: "discovery" },
  jwks: { path: "jwks" },
  client_credentials: { script: "client_credentials.lua", path: "token" },
  introspection: { script: "introspect.lua", path: "introspection" },
  userinfo: { script: "userinfo.lua", path: "userinfo" },
};

const flags = cpu_prof_flags(args.out, args.interval);
const fast_hash: Record<string, string> = args["fast-hash"] ? { IDP_ARGON2_MEMORY_KIB: "1024", IDP_ARGON2_TIME_COST: "1" } : {};
const running = await start_ours(3390, "0", { bun_flags: flags, env: fast_hash });
const seconds = Number(args.seconds);
let summary: string;
let cpu_per_flow_us: number | undefined;
let window: { from_ms: number; to_ms: number } | undefined;
try {
  const ep = await endpoints(fetch_client(), running.target.base);
  const cpu0 = cpu_seconds(running.pid);
  const wrk_case = WRK[args.case];
  if (wrk_case !== undefined) {
    const token = (await new Browser(fetch_client(), running.target, ep).flow(true)).access_token;
    const url = wrk_case.path === "discovery" ? `${running.target.base}/.well-known/openid-configuration` : ep[wrk_case.path];
    const script = wrk_case.script ? ["-s", join(import.meta.dir, "lua", wrk_case.script)] : [];
    const proc = Bun.spawn(pinned("1", ["wrk", "-t1", "-c64", `-d${seconds}s`, ...script, url]), {
      env: { ...process.env, BENCH_BASIC: basic(running.target), BENCH_TOKEN: token },
      stdout: "pipe",
    });
    const out = await new Response(proc.stdout).text();
    summary = `${/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? "?"} req/s`;
  } else {
    const [flow, n] = args.case.split(/-(?=\d+$)/) as [string, string];
    if (flow !== "session" && flow !== "first-login") throw new Error(`unknown case ${args.case}`);
    const input: DriverInput = { target: running.target, kind: flow, concurrency: Number(n), seconds, warmup: 1, server_pid: running.pid, client: "fetch" };
    const proc = Bun.spawn(pinned("1", [process.execPath, join(import.meta.dir, "driver.ts"), JSON.stringify(input)]), { stdout: "pipe", stderr: "inherit" });
    const r = JSON.parse((await new Response(proc.stdout).text()).trim()) as DriverResult;
    // The driver measures its last `seconds` (after its sign-ins and warm-up) and then exits.
    window = { from_ms: Date.now() - seconds * 1000, to_ms: Date.now() - 100 };
    cpu_per_flow_us = (r.server_cpu_s / r.flows) * 1e6;
    summary = `${r.flows_per_s.toFixed(0)} flows/s, ${((r.server_cpu_s / r.flows) * 1000).toFixed(2)} ms server CPU per flow, ${r.errors} errors`;
  }
  summary += `, server CPU ${(cpu_seconds(running.pid) - cpu0).toFixed(1)} s`;
  await Bun.sleep(500);
} finally {
  await stop(running);
}
console.log(`${args.case} under the profiler: ${summary}`);

print_hot_functions(args.out, Number(args.top));

// Where a flow's CPU goes, by the first frame of ours on each sampled stack (cpu_profile.ts).
const categories = cpu_categories(args.out, window);
const sampled = categories.reduce((sum, c) => sum + c.samples, 0);
console.log(
  `\n${sampled} busy samples${window ? " of the measured seconds" : ""}; µs per flow = share × the server CPU per flow measured above (the profiler's own cost included).`,
);
console.log(`\n| where (first frame of ours on the stack) | share of busy samples |${cpu_per_flow_us ? " µs of server CPU per flow |" : ""}`);
console.log(`| --- | ---: |${cpu_per_flow_us ? " ---: |" : ""}`);
for (const { category, share } of categories) {
  console.log(`| ${category} | ${(share * 100).toFixed(1)} % |${cpu_per_flow_us ? ` ${(share * cpu_per_flow_us).toFixed(0)} |` : ""}`);
}
