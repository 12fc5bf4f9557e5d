// Shared by the profile scripts (bench/http/profile.ts, bench/oidc/profile.ts): Bun's CPU
// profiler flags for a server process, and the hottest functions of the profile it leaves.
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

/** Empties `out` and returns the flags that make Bun write a .cpuprofile and its markdown summary there at exit. */
export function cpu_prof_flags(out: string, interval_us: string): string[] {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  return ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${out}`, `--cpu-prof-interval=${interval_us}`];
}

/** Prints the `top` functions with the most self time from the markdown summary in `out`. */
export function print_hot_functions(out: string, top: number): void {
  const md = readdirSync(out).find((f) => f.endsWith(".md"));
  if (!md) throw new Error(`no profile written to ${out} (the server must exit cleanly on SIGTERM)`);
  const text = readFileSync(join(out, md), "utf8");
  const hot = text.slice(text.indexOf("## Hot Functions"), text.indexOf("## Call Tree")).trim().split("\n");
  console.log(hot.slice(0, 4 + top).join("\n"));
  console.log(`\nfull profile: ${out}`);
}

type ProfileNode = { id: number; callFrame: { functionName: string; url: string }; children?: number[] };
type Profile = { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] };

/**
 * Where the samples' time goes, by the first frame of this repository on each stack (walking from
 * the sampled frame towards the root): a native call (OpenSSL, SQLite, JSON) counts for the file
 * that made it. Stacks without any frame of ours are Bun's own work (HTTP parsing, the event
 * loop, GC) or a library's.
 */
const CATEGORIES: [string, (url: string) => boolean][] = [
  ["RS256 signing and key use (src/platform/openssl.ts, src/oidc/keys)", (u) => /src\/platform\/openssl\.ts|src\/oidc\/keys\//.test(u)],
  ["hashes and random tokens (src/platform/crypto.ts, src/oidc/crypto)", (u) => /src\/platform\/crypto\.ts|src\/oidc\/crypto\//.test(u)],
  ["SQLite commit of a turn's writes (group_commit.ts)", (u) => u.includes("src/store/sqlite/group_commit.ts")],
  ["SQLite statements and rows (src/store)", (u) => u.includes("src/store/")],
  ["framework: routing, request contracts, responses (src/fw)", (u) => u.includes("src/fw/")],
  ["handler chain (src/http/middleware)", (u) => u.includes("src/http/middleware/")],
  ["endpoints (src/http/endpoints, pages)", (u) => /src\/http\//.test(u)],
  ["protocol rules (src/oidc)", (u) => u.includes("src/oidc/")],
  ["app wiring (src/app, src/config, src/platform)", (u) => /src\/(app|config|platform)\//.test(u)],
];

/**
 * Per category, its share of the busy samples (idle ones left out), largest first. `window`
 * (epoch ms) keeps the samples taken in it: the measured seconds, without start-up and warm-up.
 * Samples are counted, not their time deltas (a sample after an idle stretch carries its length).
 */
export function cpu_categories(out: string, window?: { from_ms: number; to_ms: number }): { category: string; share: number; samples: number }[] {
  const file = readdirSync(out).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no .cpuprofile in ${out}`);
  const profile = JSON.parse(readFileSync(join(out, file), "utf8")) as Profile;
  const parent = new Map<number, number>();
  const by_id = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    by_id.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const category_of = new Map<number, string>();
  const classify = (leaf: number): string => {
    const known = category_of.get(leaf);
    if (known) return known;
    let result: string | undefined;
    let library = false;
    const name = by_id.get(leaf)?.callFrame.functionName ?? "";
    if (name === "(idle)" || name === "(program)") result = "idle";
    else if (name === "(garbage collector)") result = "garbage collector";
    for (let id: number | undefined = leaf; result === undefined && id !== undefined; id = parent.get(id)) {
      const { url } = by_id.get(id)!.callFrame;
      if (url.includes("node_modules/")) library = true;
      if (url.includes("/src/")) result = CATEGORIES.find(([, test]) => test(url))?.[0];
    }
    result ??= library ? "libraries (node_modules) outside our code" : "Bun itself: HTTP server, event loop (no frame of ours)";
    category_of.set(leaf, result);
    return result;
  };
  const count = new Map<string, number>();
  let total = 0;
  let at_us = profile.startTime; // epoch µs
  profile.samples.forEach((leaf, i) => {
    at_us += profile.timeDeltas[i] ?? 0;
    if (window && (at_us < window.from_ms * 1000 || at_us > window.to_ms * 1000)) return;
    const category = classify(leaf);
    if (category === "idle") return;
    count.set(category, (count.get(category) ?? 0) + 1);
    total++;
  });
  return [...count.entries()].sort((a, b) => b[1] - a[1]).map(([category, n]) => ({ category, share: n / total, samples: n }));
}
