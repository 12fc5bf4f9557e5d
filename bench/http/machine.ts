// One line naming the machine a result was measured on.
import { readFileSync } from "node:fs";

export function machine_line(): string {
  let cpu = "unknown CPU";
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? cpu;
  } catch {}
  // Benchmarks without wrk (bench/oidc/workers.ts) run where it is not installed.
  const wrk = Bun.which("wrk") === null ? "no wrk" : (Bun.spawnSync(["wrk", "-v"]).stdout.toString().split("\n")[0]?.split(" [")[0] ?? "wrk ?");
  const nproc = Bun.spawnSync(["nproc"]).stdout.toString().trim();
  return `nproc ${nproc}, ${cpu}, Bun ${Bun.version}, ${wrk}`;
}
