// Forward authentication (issue 30): how many checks of `GET /forward-auth` our server answers per
// CPU-second, as a reverse proxy asks them before every request to a protected application.
//
//   node_modules/.bin/bun run bench/forward_auth/index.ts [--rounds 3] [--seconds 5] [--warmup 2]
//       [--connections 32] [--server-cpu 0] [--load-cpu 1] [--quiet-wait 10] [--dry-run]
//       [--profile /tmp/idp-fa-profile]
//                                                               # or: npm run bench -- forward-auth
//
// Each round starts `bun main.ts serve` fresh on a durable SQLite file (production mode, https
// issuer, request log off, rate limits off, argon2id at our defaults), seeded with the CLI (a
// user in a group, an application that admits the group), signs one browser in through the
// start step to get its forward-auth cookie, then loads, one case after the other:
//   - allowed: the check of a signed-in browser (200 with the Remote-* headers): the cookie's
//     session (one query), the user, the groups, the applications of the host;
//   - sign-in: the check of a browser without a cookie (302 to the start step);
//   - healthz: GET /healthz, the floor of one request through the handler chain.
// The server is pinned to --server-cpu, this script (the load, Bun's fetch, keep-alive
// connections) to --load-cpu. Server CPU is utime+stime from /proc/<pid>/stat. Every answer is
// checked (status, and the user's header for `allowed`). The database files' modification
// times are compared around the allowed run: a check writes nothing.
//
// Without --dry-run the generated part of the "## Forward authentication" section of
// bench/RESULTS.md (between its markers) is replaced with this run's table.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cpu_categories, cpu_prof_flags, print_hot_functions } from "../http/cpu_profile.ts";
import { machine_line } from "../http/machine.ts";
import { cpu_seconds, has, machine_busy_seconds, machine_load, pinned } from "../http/wrk.ts";
import { CookieJar, fetch_client } from "../oidc/http.ts";
import { percentile } from "../oidc/proc.ts";
import { cli } from "../oidc/servers.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "5" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "32" },
    "server-cpu": { type: "string", default: "0" },
    "load-cpu": { type: "string", default: "1" },
    "quiet-wait": { type: "string", default: "10" },
    "dry-run": { type: "boolean", default: false },
    // A CPU profile of the server (bun --cpu-prof) under the allowed case, one round, into this folder; nothing written to RESULTS.md.
    profile: { type: "string" },
  },
});

// This script (the load) stays off the server's core; the machine line is read before pinning.
if (process.env.BENCH_FA_PINNED !== "1" && has("taskset")) {
  const env = { ...process.env, BENCH_FA_PINNED: "1", BENCH_FA_MACHINE: machine_line() };
  const child = Bun.spawn(pinned(args["load-cpu"], [process.execPath, ...process.argv.slice(1)]), { env, stdio: ["inherit", "inherit", "inherit"] });
  process.exit(await child.exited);
}

const ROOT = join(import.meta.dir, "../..");
const rounds = Number(args.rounds);
const seconds = Number(args.seconds);
const warmup = Number(args.warmup);
const connections = Number(args.connections);
const PASSWORD = "correct horse battery staple";
const APP = "https://app.bench.test";

type Case = { name: string; label: string; path: string; headers: (cookie: string) => Record<string, string>; ok: (status: number, headers: Headers) => boolean };
const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "app.bench.test", "x-forwarded-uri": "/dashboards/d/1?orgId=1", "x-forwarded-method": "GET" };
const CASES: Case[] = [
  {
    name: "allowed",
    label: "forward-auth check, signed in and allowed (200 + Remote-* headers)",
    path: "/forward-auth",
    headers: (cookie) => ({ ...forwarded, cookie }),
    ok: (status, headers) => status === 200 && headers.get("remote-user") === "bench",
  },
  {
    name: "sign-in",
    label: "forward-auth check, not signed in (302 to the start step)",
    path: "/forward-auth",
    headers: () => forwarded,
    ok: (status) => status === 302,
  },
  { name: "healthz", label: "GET /healthz (the floor: one request through the handler chain)", path: "/healthz", headers: () => ({}), ok: (status) => status === 200 },
];

type Measure = { rate: number; per_cpu: number; p50_ms: number; p99_ms: number; server_cpu: number; others: number; errors: number };

async function wait_for_quiet(limit: number): Promise<void> {
  const deadline = Date.now() + limit * 1000;
  while ((await machine_load(500)) > 0.15 && Date.now() < deadline);
}

/** `connections` loops of requests for `secs` seconds; latencies, errors, and the server's CPU meanwhile. */
async function load(url: string, headers: Record<string, string>, ok: Case["ok"], pid: number, secs: number): Promise<Measure> {
  const latencies: number[] = [];
  let errors = 0;
  const cpu0 = cpu_seconds(pid);
  const busy0 = machine_busy_seconds();
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + secs * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        const response = await fetch(url, { headers, redirect: "manual" });
        await response.arrayBuffer();
        latencies.push(performance.now() - start);
        if (!ok(response.status, response.headers)) errors++;
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const server = cpu_seconds(pid) - cpu0;
  const own = process.cpuUsage(own0);
  const others = Math.max(0, (machine_busy_seconds() - busy0 - server - (own.user + own.system) / 1e6) / wall);
  return {
    rate: latencies.length / wall,
    per_cpu: latencies.length / server,
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
    server_cpu: server / wall,
    others,
    errors,
  };
}

type Running = { base: string; pid: number; dir: string; db: string; stop: () => Promise<void> };

async function start_server(port: number): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), "idp-bench-fa-"));
  const db = join(dir, "idp.sqlite");
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATABASE_URL: `sqlite:${db}`,
    IDP_ISSUER: "https://id.bench.test",
    PORT: String(port),
    HOST: "127.0.0.1",
    IDP_PRODUCTION: "true",
    IDP_LOG_REQUESTS: "false",
    IDP_RATE_LIMITS: "off",
    IDP_FORWARD_AUTH_COOKIE_DOMAIN: "bench.test",
    IDP_TRUST_PROXY: "true",
  };
  await cli(env, ["migrate"]);
  await cli(env, ["users", "add", "bench", "--password-stdin", "--email", "bench@example.com", "--email-verified", "--name", "Bench User"], `${PASSWORD}\n`);
  await cli(env, ["groups", "add", "staff"]);
  await cli(env, ["groups", "members", "add", "staff", "bench"]);
  await cli(env, ["apps", "add", "bench", "--url", APP, "--allowed-group", "staff", "--rule", "/admin=staff+2fa"]);
  const flags = args.profile === undefined ? [] : cpu_prof_flags(args.profile, "250");
  const proc = Bun.spawn(pinned(args["server-cpu"], [process.execPath, ...flags, join(ROOT, "main.ts"), "serve"]), { env, cwd: ROOT, stdout: "ignore", stderr: "inherit" });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`the server exited with ${proc.exitCode}`);
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`the server did not answer on ${base}`);
    await Bun.sleep(100);
  }
  return {
    base,
    pid: proc.pid,
    dir,
    db,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs the bench user in through the start step, as a browser sent there by the proxy; returns the forward-auth cookie header. */
async function forward_auth_cookie(base: string): Promise<string> {
  const send = fetch_client();
  const jar = new CookieJar();
  const start = `${base}/forward-auth/start?rd=${encodeURIComponent(`${APP}/`)}`;
  const first = await send("GET", start, {});
  if (first.status !== 302) throw new Error(`start step: ${first.status}`);
  const page = await send("GET", `${base}/account/login`, {});
  jar.take(page.set_cookie);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (csrf === undefined) throw new Error("no form token on the sign-in page");
  const body = new URLSearchParams({ csrf, username: "bench", password: PASSWORD }).toString();
  const signed = await send("POST", `${base}/account/login`, { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" }, body);
  if (signed.status !== 303) throw new Error(`sign-in: ${signed.status}`);
  jar.take(signed.set_cookie);
  const back = await send("GET", start, { cookie: jar.header(), "sec-fetch-site": "cross-site" });
  const cookie = back.set_cookie.find((line) => line.startsWith("__Secure-idp_forward_auth="));
  if (back.status !== 302 || cookie === undefined) throw new Error(`start step after sign-in: ${back.status}`);
  return cookie.slice(0, cookie.indexOf(";"));
}

const mtimes = (db: string) => [db, `${db}-wal`].map((file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0).join(",");
const machine = process.env.BENCH_FA_MACHINE ?? machine_line();
const load_avg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const load_before = load_avg();
console.log(machine);
console.log(`${rounds} rounds × ${CASES.length} cases, ${seconds} s each after ${warmup} s, ${connections} connections; load average ${load_before}`);

if (args.profile !== undefined) {
  const server = await start_server(3499);
  try {
    const cookie = await forward_auth_cookie(server.base);
    const allowed = CASES[0]!;
    const m = await load(`${server.base}${allowed.path}`, allowed.headers(cookie), allowed.ok, server.pid, seconds);
    console.log(`allowed under the profiler: ${m.rate.toFixed(0)} req/s, ${(1e6 / m.per_cpu).toFixed(0)} µs server CPU each, ${m.errors} errors`);
  } finally {
    await server.stop();
  }
  print_hot_functions(args.profile, 30);
  for (const { category, share } of cpu_categories(args.profile)) console.log(`${category}: ${(share * 100).toFixed(1)} %`);
  process.exit(0);
}

const results = new Map<string, Measure[]>();
const writes: boolean[] = [];
let port = 3500;
for (let round = 0; round < rounds; round++) {
  const server = await start_server(port++);
  try {
    const cookie = await forward_auth_cookie(server.base);
    for (const c of CASES) {
      const url = `${server.base}${c.path}`;
      const headers = c.headers(cookie);
      if (warmup > 0) await load(url, headers, c.ok, server.pid, warmup);
      await wait_for_quiet(Number(args["quiet-wait"]));
      const before = mtimes(server.db);
      const m = await load(url, headers, c.ok, server.pid, seconds);
      if (c.name === "allowed") writes.push(mtimes(server.db) !== before);
      results.set(c.name, [...(results.get(c.name) ?? []), m]);
      console.log(
        `  round ${round + 1} ${c.name.padEnd(8)} ${m.rate.toFixed(0).padStart(7)} req/s ${m.per_cpu.toFixed(0).padStart(7)} per CPU-s  p50 ${m.p50_ms.toFixed(2)} ms  p99 ${m.p99_ms.toFixed(2)} ms  server ${Math.round(m.server_cpu * 100)}%  others ${Math.round(m.others * 100)}%${m.errors > 0 ? `  ERRORS ${m.errors}` : ""}`,
      );
    }
  } finally {
    await server.stop();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const n = (value: number, digits = 0) => value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const rows = CASES.map((c) => {
  const ms = results.get(c.name)!;
  const pick = (f: (m: Measure) => number) => median(ms.map(f));
  const errors = ms.reduce((sum, m) => sum + m.errors, 0);
  return `| ${c.label} | ${n(pick((m) => m.rate))} | ${n(pick((m) => m.per_cpu))} | ${n(1e6 / pick((m) => m.per_cpu))} | ${n(
    pick((m) => m.p50_ms),
    2,
  )} / ${n(
    pick((m) => m.p99_ms),
    2,
  )} | ${Math.round(pick((m) => m.server_cpu) * 100)}% | ${Math.round(pick((m) => m.others) * 100)}% | ${errors} |`;
});
const section = [
  "`node_modules/.bin/bun run bench/forward_auth/index.ts` — `bun main.ts serve` (production mode, durable SQLite file, request log and rate limits off), one signed-in browser's forward-auth cookie, the proxy's headers of a GET.",
  "",
  `Date: ${new Date().toISOString().slice(0, 10)} · ${machine} · server on CPU ${args["server-cpu"]}, load (Bun fetch, keep-alive) on CPU ${args["load-cpu"]} · median of ${rounds} rounds, ${seconds} s each after ${warmup} s · ${connections} connections · load average ${load_before} → ${load_avg()}`,
  "",
  "| case | req/s | per CPU-second of the server | server CPU µs each | p50 / p99 ms | server core use | others | errors |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows,
  "",
  `Database writes during the allowed runs (the SQLite file's and its WAL's modification times): ${writes.some(Boolean) ? "some" : "none"} (${writes.length} runs).`,
].join("\n");
console.log(`\n${section}`);
if (!args["dry-run"]) write_results(join(import.meta.dir, "../RESULTS.md"), section);

/** Replaces the generated part of the "## Forward authentication" section; adds the section at the end when there is none. */
function write_results(path: string, text: string): void {
  const BEGIN = "<!-- bench/forward_auth: begin generated -->";
  const END = "<!-- bench/forward_auth: end generated -->";
  const current = readFileSync(path, "utf8");
  const generated = `${BEGIN}\n${text.trim()}\n${END}`;
  const b = current.indexOf(BEGIN);
  const e = current.indexOf(END);
  const next = b !== -1 && e > b ? current.slice(0, b) + generated + current.slice(e + END.length) : `${current.trimEnd()}\n\n## Forward authentication\n\n${generated}\n`;
  writeFileSync(path, next);
  console.log(`\nwritten to ${path} (## Forward authentication)`);
}
