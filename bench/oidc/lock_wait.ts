// How long another process waits on our SQLite file while the server is under load:
//   bun run bench/oidc/lock_wait.ts [--case session-32] [--seconds 40] [--probes 15] [--cli 6]
// Starts ours (CPU 0) on a fresh SQLite file and loads it with the flow driver (CPU 1). After a
// short warm-up this process opens the same file `--probes` times, 0.3 s apart. Each time it
// times the open, `PRAGMA journal_mode`, a read, and taking the write lock (`BEGIN IMMEDIATE;
// COMMIT`). Then it times `--cli` runs of `idp users list` and `idp users add` (whole processes,
// start-up included). Group commit keeps the write lock nearly all the time under load; the
// numbers are in bench/RESULTS.md, "Group commit and other processes".
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pinned } from "../http/wrk.ts";
import type { DriverInput, DriverResult } from "./driver.ts";
import { cli, start_ours, stop } from "./servers.ts";

const { values: args } = parseArgs({
  options: {
    case: { type: "string", default: "session-32" },
    seconds: { type: "string", default: "40" },
    probes: { type: "string", default: "15" },
    cli: { type: "string", default: "6" },
  },
});

// The probes run on the load's core (CPU 1), not the server's.
if (process.env.BENCH_PINNED !== "1") {
  const child = Bun.spawn(pinned("1", [process.execPath, ...process.argv.slice(1)]), { env: { ...process.env, BENCH_PINNED: "1" }, stdio: ["inherit", "inherit", "inherit"] });
  process.exit(await child.exited);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const range = (values: number[]) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)} ms (median ${median(values).toFixed(1)})`;

async function timed(body: () => unknown | Promise<unknown>): Promise<number> {
  const start = performance.now();
  await body();
  return performance.now() - start;
}

const running = await start_ours(3392, "0");
const env = running.env!;
const path = env.DATABASE_URL!.slice("sqlite:".length);
let driver: ReturnType<typeof Bun.spawn> | undefined;
try {
  const [flow, n] = args.case.split(/-(?=\d+$)/) as [string, string];
  const input: DriverInput = {
    target: running.target,
    kind: flow as DriverInput["kind"],
    concurrency: Number(n),
    seconds: Number(args.seconds),
    warmup: 1,
    server_pid: running.pid,
    client: "fetch",
  };
  const started = performance.now();
  driver = Bun.spawn(pinned("1", [process.execPath, join(import.meta.dir, "driver.ts"), JSON.stringify(input)]), { stdout: "pipe", stderr: "inherit" });
  const result = new Response(driver.stdout as ReadableStream).text();
  await Bun.sleep(3000);

  const probe = { open: [] as number[], wal: [] as number[], read: [] as number[], lock: [] as number[] };
  for (let i = 0; i < Number(args.probes); i++) {
    let db: Database | undefined;
    probe.open.push(
      await timed(() => {
        db = new Database(path);
        db.exec("PRAGMA busy_timeout = 30000");
      }),
    );
    probe.wal.push(await timed(() => db!.exec("PRAGMA journal_mode = WAL")));
    probe.read.push(await timed(() => db!.query("SELECT count(*) AS n FROM users").get()));
    probe.lock.push(
      await timed(() => {
        db!.exec("BEGIN IMMEDIATE");
        db!.exec("COMMIT");
      }),
    );
    db!.close();
    await Bun.sleep(300);
  }
  const list: number[] = [];
  const add: number[] = [];
  for (let i = 0; i < Number(args.cli); i++) {
    list.push(await timed(() => cli(env, ["users", "list"])));
    add.push(await timed(() => cli(env, ["users", "add", `lockwait-${i}-${Date.now()}`, "--password-stdin"], "a long enough passphrase\n")));
  }
  // Every probe and command must have run under load: warn if the load ended first.
  const measured_s = (performance.now() - started) / 1000;
  if (measured_s > Number(args.seconds)) console.warn(`warning: the measurements took ${measured_s.toFixed(0)} s, past the ${args.seconds} s of load: raise --seconds`);
  const load = JSON.parse((await result).trim()) as DriverResult;
  console.log(`${args.case}: ${load.flows_per_s.toFixed(0)} flows/s, ${load.errors} errors, while another process (CPU 1) used the file:`);
  console.log(`- open ${range(probe.open)}; journal_mode ${range(probe.wal)}; read ${range(probe.read)}`);
  console.log(`- write lock (BEGIN IMMEDIATE; COMMIT) ${range(probe.lock)}`);
  console.log(`- idp users list ${range(list)}; idp users add ${range(add)} (whole processes)`);
} finally {
  driver?.kill();
  await stop(running);
}
