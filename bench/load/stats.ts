/** Numbers from a ledger: rates, percentiles, error counts, and how a scenario prints them. */
import { readFileSync } from "node:fs";
import { machine_line } from "../http/machine.ts";
import type { Hit, Ledger } from "./driver.ts";

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const ms = (v: number) => (Number.isNaN(v) ? "–" : v < 10 ? v.toFixed(1) : v.toFixed(0));

/** p50/p99 of complete flows and of each step, in ms. */
export function latency_rows(ledger: Ledger): string[][] {
  const rows = [
    [
      "whole flow",
      String(ledger.flows.length),
      ms(
        percentile(
          ledger.flows.map((f) => f.ms),
          50,
        ),
      ),
      ms(
        percentile(
          ledger.flows.map((f) => f.ms),
          99,
        ),
      ),
    ],
  ];
  const steps = new Map<string, Hit[]>();
  for (const hit of ledger.hits) if (hit.status !== 0) steps.set(hit.step, [...(steps.get(hit.step) ?? []), hit]);
  for (const [step, hits] of steps) {
    const times = hits.map((h) => h.ms);
    rows.push([step, String(hits.length), ms(percentile(times, 50)), ms(percentile(times, 99))]);
  }
  return rows;
}

/** Failed flows grouped by step, status and (shortened) reason. */
export function failure_counts(ledger: Ledger, from = -Infinity, to = Infinity): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of ledger.failures) {
    if (f.t0 < from || f.t0 >= to) continue;
    const key = `${f.step} ${f.status === 0 ? "" : f.status} ${f.error.replace(/[0-9a-f-]{16,}/gi, "…").slice(0, 60)}`.replace(/\s+/g, " ");
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map((_, i) => (i === 0 ? "---" : "---:"))), ...rows.map(line)].join("\n");
}

export function load_average(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "?";
  }
}

/** The header every scenario prints: date, machine, command, load average. */
export function header(scenario: string): string {
  const env = [
    "DB",
    "CONCURRENCY",
    "DURATION",
    "USERS",
    "ARGON2",
    "TIMEOUT_MS",
    "CRASHES",
    "FAULT",
    "OUTAGE_AT",
    "OUTAGE",
    "ROTATIONS",
    "ROTATE_EVERY",
    "KEYS_POLL",
    "RESTART_AFTER",
    "RESTART",
    "NGINX_SITE",
  ]
    .filter((k) => process.env[k])
    .map((k) => `${k}=${process.env[k]}`);
  return [
    `### ${scenario} — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
    "",
    `Machine: ${machine_line().replace(/, wrk.*$/, "")} · load average before: ${load_average()}`,
    "",
    `Command: \`${[...env, "node_modules/.bin/bun run bench/load/index.ts", scenario].join(" ")}\``,
    "",
  ].join("\n");
}

/** Prints progress to stderr every `every_ms` while a load runs. */
export function progress(ledger: Ledger, label: string, every_ms = 5000, extra: () => string = () => ""): () => void {
  const t0 = performance.now();
  const timer = setInterval(() => {
    const s = ((performance.now() - t0) / 1000).toFixed(0);
    process.stderr.write(`[${label} ${s}s] flows ${ledger.flows.length}, failed ${ledger.failures.length}${extra()}\n`);
  }, every_ms);
  return () => clearInterval(timer);
}

/** One line naming the checks; **FAILED** (which index.ts looks for) when any did not pass. */
export function verdict(checks: [string, boolean][]): string {
  const failed = checks.filter(([, ok]) => !ok).map(([name]) => name);
  if (failed.length === 0) return `Checks passed: ${checks.map(([name]) => name).join("; ")}.`;
  return `**FAILED**: ${failed.join("; ")}. (Passed: ${checks
    .filter(([, ok]) => ok)
    .map(([name]) => name)
    .join("; ")}.)`;
}
