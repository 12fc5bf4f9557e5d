// Reading a server process from /proc: resident memory now (VmRSS) and its high-water mark (VmHWM).
import { readFileSync } from "node:fs";

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
