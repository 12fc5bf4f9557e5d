// Router benchmark: `cd bench && bun run router/index.ts` (add `--write` to update RESULTS.md).
// Lookups of five kinds and registration of the whole route set, for our router and its peers,
// each router measured in a process of its own (see measure.ts).
import { ADAPTERS } from "./adapters.ts";
import { CASES, ROUTES } from "./routes.ts";
import { write_section } from "./results.ts";

const only = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const rows: string[] = [];
for (const adapter of ADAPTERS) {
  if (only.length > 0 && !only.some((o) => adapter.name.includes(o))) continue;
  const child = Bun.spawnSync([process.execPath, "run", new URL("measure.ts", import.meta.url).pathname, adapter.name], {
    stderr: "inherit",
  });
  if (child.exitCode !== 0) throw new Error(`measuring ${adapter.name} failed`);
  const ns = JSON.parse(child.stdout.toString()) as Record<string, number>;
  const cells = CASES.map((c) => format(ns[c.name]!));
  cells.push(format(ns.register! / 1000));
  rows.push(`| ${adapter.name}${adapter.codegen ? " *" : ""} | ${cells.join(" | ")} |`);
  console.error(`measured ${adapter.name}`);
}
const columns = [...CASES.map((c) => c.name), "register (µs)"];
const table = [`| router | ${columns.join(" | ")} |`, `| --- | ${columns.map(() => "---:").join(" | ")} |`, ...rows].join("\n");
console.log(table);
console.log("\nns per lookup (mitata average); register = adding all routes to a new router; * generates code at run time");
if (process.argv.includes("--write")) await write_section(table, ROUTES.length);

function format(n: number): string {
  return n < 10 ? n.toFixed(1) : n.toFixed(0);
}
