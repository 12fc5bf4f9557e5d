// Measures one router in a process of its own, so no router's JIT profile depends on another's.
// Usage: ../node_modules/.bin/bun run router/measure.ts <adapter name> [avg|p50]; prints JSON {case: ns}.
import { bench, do_not_optimize, run } from "mitata";
import { ADAPTERS } from "./adapters.ts";
import { CASES, ROUTES } from "./routes.ts";

const name = process.argv[2];
const adapter = ADAPTERS.find((a) => a.name === name);
if (adapter === undefined) throw new Error(`no adapter named ${name}`);

const lookup = adapter.build(ROUTES);
for (const c of CASES) {
  if (adapter.hit(lookup(c.method, c.path)) !== (c.name !== "miss")) throw new Error(`${adapter.name} answers ${c.name} wrongly`);
}
// A server sees every kind of path: warm the JIT on the mix before timing any single case.
for (let i = 0; i < 200_000; i++) for (const c of CASES) do_not_optimize(lookup(c.method, c.path));

for (const c of CASES) {
  const { method, path } = c;
  // a computed argument, so the JIT cannot hoist a lookup of a constant path out of the loop
  bench(c.name, function* () {
    yield { 0: () => path, bench: (p: string) => do_not_optimize(lookup(method, p)) };
  });
}
bench("register", () => do_not_optimize(adapter.build(ROUTES)));

const { benchmarks } = await run({ format: "quiet" });
const out: Record<string, number> = {};
const stat = process.argv[3] === "avg" ? "avg" : "p50";
for (const b of benchmarks) out[b.alias] = b.runs[0]!.stats![stat];
console.log(JSON.stringify(out));
