// HTTP benchmark: the same two endpoints on raw Bun.serve, Fw, Hono and Elysia, loaded with wrk.
//
//   bun run bench/http/index.ts [--rounds 3] [--seconds 10] [--warmup 2] [--connections 64]
//                               [--servers raw,raw-routes,fw,hono,elysia] [--routes json,user]
//                               [--server-cpu 0] [--wrk-cpu 1] [--json out.json]
//                               [--quiet-wait 60] [--max-others 0.1] [--retries 3]
//
// Each server is its own process (servers/<name>.ts, PORT from env), all pinned to one core and
// started together (an idle server costs nothing), wrk pinned to another. Per round and route,
// the servers are loaded one after the other, the order rotating between rounds, so each ratio
// to raw Bun.serve compares runs seconds apart; the table gives medians over rounds.
// Server CPU is read from /proc: a run during which other processes were busy is measured again.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { machine_line } from "./machine.ts";
import { print_table, type Cell } from "./table.ts";
import { has, machine_load, start_server, stop_server, wrk, type Load, type Started } from "./wrk.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "64" },
    threads: { type: "string", default: "1" },
    servers: { type: "string", default: "raw,raw-routes,fw,hono,elysia" },
    routes: { type: "string", default: "json,user" },
    "server-cpu": { type: "string", default: "0" },
    "wrk-cpu": { type: "string", default: "1" },
    json: { type: "string" },
    /** Before each measured run, wait up to this many seconds for the machine to be idle. */
    "quiet-wait": { type: "string", default: "60" },
    /** A run during which other processes used more than this many cores is measured again... */
    "max-others": { type: "string", default: "0.1" },
    /** ...up to this many times; the last attempt is kept (and flagged) if none was clean. */
    retries: { type: "string", default: "3" },
  },
});

/** What each route must answer, checked on every server before it is loaded. */
const ROUTES: Record<string, { label: string; path: string; expect: unknown }> = {
  json: { label: "GET /json", path: "/json", expect: { message: "hello" } },
  user: { label: "GET /users/:id", path: "/users/42", expect: { id: "42" } },
};

const servers = args.servers.split(",");
const routes = args.routes.split(",");
for (const r of routes) if (!ROUTES[r]) throw new Error(`unknown route ${r}: use ${Object.keys(ROUTES).join(", ")}`);
if (!has("wrk")) throw new Error("wrk is not installed (Debian: apt-get install -y wrk)");
if (!has("taskset")) console.warn("taskset not found: server and wrk run unpinned");

const rounds = Number(args.rounds);
const max_others = Number(args["max-others"]);
const opts = { threads: Number(args.threads), connections: Number(args.connections), seconds: Number(args.seconds), cpu: args["wrk-cpu"] };
const results = new Map<string, Load[]>(); // `${server} ${route}` → one Load per round
const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : "-");

async function check(base: string, server: string): Promise<void> {
  for (const r of routes) {
    const { path, expect } = ROUTES[r]!;
    const res = await fetch(base + path);
    const body = await res.text();
    if (res.status !== 200 || JSON.stringify(JSON.parse(body)) !== JSON.stringify(expect)) {
      throw new Error(`${server} ${path} answered ${res.status} ${body}; expected ${JSON.stringify(expect)}`);
    }
  }
}

/** Waits (up to `seconds`) until the rest of the machine uses under `max_others` of a core. */
async function wait_for_quiet(seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  let load = await machine_load(500); // the servers idle between runs: anything busy is someone else
  while (load > max_others && Date.now() < deadline) load = await machine_load(1000);
  if (load > max_others) console.warn(`  machine still busy (${pct(load)} of a core) after ${seconds} s: measuring anyway`);
}

/** One measured run, again while other work disturbed it (up to --retries times). */
async function measure(started: Started, server: string, r: string): Promise<Load> {
  const url = started.base + ROUTES[r]!.path;
  for (let attempt = 0; ; attempt++) {
    await wait_for_quiet(Number(args["quiet-wait"]));
    const load = await wrk(url, opts, started.proc.pid);
    if (load.other_cpu <= max_others || attempt >= Number(args.retries)) return load;
    console.warn(`  ${server} ${r}: other work used ${pct(load.other_cpu)} of a core meanwhile (${Math.round(load.rps)} req/s): measuring again`);
  }
}

const running = new Map<string, Started>();
const stop_all = () => Promise.all([...running.values()].map(stop_server));
// Interrupted: take the servers under test down with us.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    for (const s of running.values()) s.proc.kill("SIGKILL");
    process.exit(130);
  });
}

console.log(machine_line());
console.log(
  `${rounds} rounds × ${servers.length} servers × ${routes.length} routes, ${opts.seconds} s each (warm-up ${args.warmup} s), wrk -t${opts.threads} -c${opts.connections}`,
);
try {
  for (const server of servers) {
    const started = await start_server(join(import.meta.dir, "servers", `${server.replaceAll("-", "_")}.ts`), args["server-cpu"]);
    running.set(server, started);
    await check(started.base, server);
    for (const r of routes) if (Number(args.warmup) > 0) await wrk(started.base + ROUTES[r]!.path, { ...opts, seconds: Number(args.warmup) });
  }
  for (let round = 0; round < rounds; round++) {
    const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
    for (const r of routes) {
      for (const server of order) {
        const load = await measure(running.get(server)!, server, r);
        if (load.errors > 0 || load.non_2xx > 0) console.warn(`  ${server} ${r}: ${load.errors} socket errors, ${load.non_2xx} non-2xx`);
        const key = `${server} ${r}`;
        results.set(key, [...(results.get(key) ?? []), load]);
        console.log(
          `  round ${round + 1} ${server.padEnd(10)} ${ROUTES[r]!.label.padEnd(15)} ${Math.round(load.rps).toLocaleString("en-US").padStart(9)} req/s` +
            `  p99 ${load.p99_ms.toFixed(2)} ms  server CPU ${pct(load.server_cpu)}  wrk ${pct(load.wrk_cpu)}  others ${pct(load.other_cpu)}` +
            (load.other_cpu > max_others ? "  (disturbed)" : ""),
        );
      }
    }
  }
} finally {
  await stop_all();
}

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const cells: Cell[] = [];
for (const r of routes) {
  const raw = results.get(`raw ${r}`);
  for (const server of servers) {
    const loads = results.get(`${server} ${r}`) ?? [];
    const rps = loads.map((l) => l.rps);
    const per_cpu = loads.map((l) => l.rps / l.server_cpu);
    // Paired: each round's run against raw's run of the same round.
    const paired = (f: (l: Load) => number) => (raw ? median(loads.map((l, i) => f(l) / f(raw[i]!))) : undefined);
    cells.push({
      server,
      route: ROUTES[r]!.label,
      rps: median(rps),
      min: Math.min(...rps),
      max: Math.max(...rps),
      cpu: median(loads.map((l) => l.server_cpu)),
      others: median(loads.map((l) => l.other_cpu)),
      per_cpu: median(per_cpu),
      ratio: paired((l) => l.rps),
      per_cpu_ratio: paired((l) => l.rps / l.server_cpu),
    });
  }
}
print_table(cells);
if (args.json) await Bun.write(args.json, JSON.stringify({ machine: machine_line(), options: args, cells, rounds: Object.fromEntries(results) }, null, 2));
