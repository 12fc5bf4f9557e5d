// Reading a server process from /proc: resident memory now (VmRSS) and its high-water mark (VmHWM).
import { readdirSync, readFileSync } from "node:fs";
import { cpu_seconds } from "../http/wrk.ts";

export function rss_kib(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
  } catch {
    return { rss: Number.NaN, hwm: Number.NaN };
  }
}

/** The q-quantile (0..1) of the samples, nearest rank; NaN when there are none. */
export function percentile(samples: number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The pid and every descendant of it (`idp serve --workers N`: the primary and its workers). */
export function process_tree(pid: number): number[] {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    try {
      for (const task of readdirSync(`/proc/${pids[i]}/task`)) {
        const children = readFileSync(`/proc/${pids[i]}/task/${task}/children`, "utf8").trim();
        if (children !== "") pids.push(...children.split(" ").map(Number));
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** CPU seconds (utime + stime, all threads) of a process and all its descendants now alive. */
export function tree_cpu_seconds(pid: number): number {
  return process_tree(pid).reduce((sum, p) => sum + (Number.isNaN(cpu_seconds(p)) ? 0 : cpu_seconds(p)), 0);
}
