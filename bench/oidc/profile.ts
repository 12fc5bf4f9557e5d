// CPU profile of our provider under one bench/oidc case:
//   bun run bench/oidc/profile.ts [--case session-8] [--seconds 10] [--out /tmp/idp-profile] [--top 25] [--fast-hash]
// Starts ours with `bun --cpu-prof` (pinned to CPU 0), loads it from CPU 1 with the same wrk
// script or flow driver as index.ts, stops it (SIGTERM: the profile is written at exit) and
// prints the functions with the most self time from Bun's markdown summary.
import { cpu_prof_flags, print_hot_functions } from "../http/cpu_profile.ts";
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
const fast_hash = args["fast-hash"] ? { IDP_ARGON2_MEMORY_KIB: "1024", IDP_ARGON2_TIME_COST: "1" } : {};
const running = await start_ours(3390, "0", { bun_flags: flags, env: fast_hash });
const seconds = Number(args.seconds);
let summary: string;
try {
  const ep = await endpoints(fetch_client(), running.target.base);
  const cpu0 = cpu_seconds(running.pid);
  const wrk_case = WRK[args.case];
  if (wrk_case !== undefined) {
    const token = (await new Browser(fetch_client(), running.target, ep).flow(true)).access_token;
    const url = wrk_case.path === "discovery" ? `${running.target.base}/.well-known/openid-configuration` : ep[wrk_case.path];
    const script = wrk_case.script ? ["-s", join(import.meta.dir, "lua", wrk_case.script)] : [];
    const proc = Bun.spawn(pinned("1", ["wrk", "-t1", "-c64", `-d${seconds}s`, ...script, url]), { env: { ...process.env, BENCH_BASIC: basic(running.target), BENCH_TOKEN: token }, stdout: "pipe" });
    const out = await new Response(proc.stdout).text();
    summary = `${/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? "?"} req/s`;
  } else {
    const [flow, n] = args.case.split(/-(?=\d+$)/) as [string, string];
    if (flow !== "session" && flow !== "first-login") throw new Error(`unknown case ${args.case}`);
    const input: DriverInput = { target: running.target, kind: flow, concurrency: Number(n), seconds, warmup: 1, server_pid: running.pid, client: "fetch" };
    const proc = Bun.spawn(pinned("1", [process.execPath, join(import.meta.dir, "driver.ts"), JSON.stringify(input)]), { stdout: "pipe", stderr: "inherit" });
    const r = JSON.parse((await new Response(proc.stdout).text()).trim()) as DriverResult;
    summary = `${r.flows_per_s.toFixed(0)} flows/s, ${((r.server_cpu_s / r.flows) * 1000).toFixed(2)} ms server CPU per flow, ${r.errors} errors`;
  }
  summary += `, server CPU ${(cpu_seconds(running.pid) - cpu0).toFixed(1)} s`;
  await Bun.sleep(500);
} finally {
  await stop(running);
}
console.log(`${args.case} under the profiler: ${summary}`);

print_hot_functions(args.out, Number(args.top));
