// Router benchmark: `cd bench && ../node_modules/.bin/bun run router/index.ts [--rounds=N] [--avg] [--write] [name filter...]`
// (`--write` updates the Router section of bench/RESULTS.md).
// Lookups of five kinds and registration of the whole route set, for our router and its peers,
// each router measured in a process of its own (see measure.ts).
import { ADAPTERS } from "./adapters.ts";
import { CASES, ROUTES } from "./routes.ts";
import { loadavg } from "node:os";
import { write_section } from "./results.ts";

const args = process.argv.slice(2);
const only = args.filter((a) => !a.startsWith("--"));
const rounds = Number(args.find((a) => a.startsWith("--rounds="))?.slice(9) ?? 3);
// The median resists bursts of load from other processes better than the mean.
const stat = args.includes("--avg") ? "avg" : "p50";
const adapters = ADAPTERS.filter((a) => only.length === 0 || only.some((o) => a.name.includes(o)));

// Rounds go over every router in turn, so a burst of load elsewhere on the machine hits them
// alike; each cell keeps its best round.
const load_before = loadavg()[0]!;
const best = new Map<string, Record<string, number>>();
for (let round = 1; round <= rounds; round++) {
  for (const adapter of adapters) {
    const child = Bun.spawnSync([process.execPath, "run", new URL("measure.ts", import.meta.url).pathname, adapter.name, stat], {
      stderr: "inherit",
    });
    if (child.exitCode !== 0) throw new Error(`measuring ${adapter.name} failed`);
    const ns = JSON.parse(child.stdout.toString()) as Record<string, number>;
    const kept = best.get(adapter.name) ?? {};
    for (const [key, value] of Object.entries(ns)) kept[key] = Math.min(kept[key] ?? Infinity, value);
    best.set(adapter.name, kept);
    console.error(`round ${round}/${rounds}: measured ${adapter.name}`);
  }
}
const rows = adapters.map((adapter) => {
  const ns = best.get(adapter.name)!;
  const cells = CASES.map((c) => format(ns[c.name]!));
  cells.push(format(ns.register! / 1000));
  return `| ${adapter.name}${adapter.codegen ? " *" : ""} | ${cells.join(" | ")} |`;
});
const columns = [...CASES.map((c) => c.name), "register (µs)"];
const table = [`| router | ${columns.join(" | ")} |`, `| --- | ${columns.map(() => "---:").join(" | ")} |`, ...rows].join("\n");
console.log(table);
const legend = `ns per lookup: mitata ${stat === "p50" ? "median" : "mean"}, best of ${rounds} rounds, each router in a process of its own. register: µs to add every route to a new router. * generates code at run time (new Function).`;
console.log(`\n${legend}`);
const load = `load average ${load_before.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`;
console.log(load);
if (args.includes("--write")) await write_section(table, `${ROUTES.length} routes (the GitHub API list + 3 wildcard routes). ${legend}`, load);

function format(n: number): string {
  return n < 10 ? n.toFixed(1) : n.toFixed(0);
}
