// CPU profile of our provider under one bench/oidc case:
//   bun run bench/oidc/profile.ts [--case session-8] [--seconds 10] [--out /tmp/idp-profile] [--top 25]
// Starts ours with `bun --cpu-prof` (pinned to CPU 0), loads it from CPU 1 with the same wrk
// script or flow driver as index.ts, stops it (SIGTERM: the profile is written at exit) and
// prints the functions with the most self time from Bun's markdown summary.
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
  },
});

const WRK: Record<string, { script?: string; path: "token" | "introspection" | "userinfo" | "jwks" | "discovery" }> = {
  discovery: { path: "discovery" },
  jwks: { path: "jwks" },
  client_credentials: { script: "client_credentials.lua", path: "token" },
  introspection: { script: "introspect.lua", path: "introspection" },
  userinfo: { script: "userinfo.lua", path: "userinfo" },
};

rmSync(args.out, { recursive: true, force: true });
mkdirSync(args.out, { recursive: true });
const flags = ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${args.out}`, `--cpu-prof-interval=${args.interval}`];
const running = await start_ours(3390, "0", { bun_flags: flags });
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

const md = readdirSync(args.out).find((f) => f.endsWith(".md"));
if (!md) throw new Error(`no profile written to ${args.out} (the server must exit cleanly on SIGTERM)`);
const text = readFileSync(join(args.out, md), "utf8");
const hot = text.slice(text.indexOf("## Hot Functions"), text.indexOf("## Call Tree")).trim().split("\n");
console.log(hot.slice(0, 4 + Number(args.top)).join("\n"));
console.log(`\nfull profile: ${args.out}`);
