/**
 * Load and fault scenarios against a real `bun run main.ts serve` process, run by hand:
 *
 *   node_modules/.bin/bun run bench/load/index.ts sustained|crash|db-fault|rotation|cluster|cluster-db-restart
 *
 * Each prints a Markdown section (date, machine, command, numbers) for bench/RESULTS.md, and
 * exits 1 when a check failed. Knobs (environment): DB, CONCURRENCY, DURATION, USERS, ARGON2,
 * TIMEOUT_MS, and per scenario those bench/README.md lists.
 */
import { cluster } from "./cluster.ts";
import { cluster_db_restart } from "./cluster_db_restart.ts";
import { crash } from "./crash.ts";
import { db_fault } from "./db_fault.ts";
import { rotation } from "./rotation.ts";
import { header } from "./stats.ts";
import { sustained } from "./sustained.ts";

const scenario = process.argv[2];
const dbs = (fallback: string) => (process.env.DB ?? fallback).split(",") as ("sqlite" | "postgres")[];

/** Each scenario returns its Markdown and whether every check passed. */
const SCENARIOS: Record<string, () => Promise<{ text: string; ok: boolean }>> = {
  async sustained() {
    const parts = [];
    for (const kind of dbs("sqlite,postgres")) parts.push(await sustained(kind));
    return { text: parts.join("\n"), ok: parts.every((p) => !p.includes("**FAILED**")) };
  },
  crash: () => crash(dbs("sqlite")[0]!),
  "db-fault": () => db_fault(),
  rotation: () => rotation(dbs("postgres")[0]!),
  cluster: () => cluster(),
  "cluster-db-restart": () => cluster_db_restart(),
};

const run = scenario === undefined ? undefined : SCENARIOS[scenario];
if (run === undefined) {
  process.stderr.write(`usage: bun run bench/load/index.ts ${Object.keys(SCENARIOS).join("|")}\n`);
  process.exit(2);
}
const head = header(scenario!);
const { text, ok } = await run();
process.stdout.write(`${head}\n${text}\n`);
process.exit(ok ? 0 : 1);
