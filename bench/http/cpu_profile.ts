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
