// The result table: per route and server, the median req/s over rounds and its ratio to raw
// Bun.serve, and the same normalised by the CPU the server actually got (requests per
// CPU-second of the server process), which holds steadier when other work shares the machine.
export type Cell = {
  server: string;
  route: string;
  rps: number;
  min: number;
  max: number;
  cpu: number;
  /** Cores' worth of CPU other processes used during the runs (0 on a quiet machine). */
  others: number;
  per_cpu: number;
  ratio: number | undefined;
  per_cpu_ratio: number | undefined;
};

const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-");
const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : "-");
const x = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(2));

export function table_lines(cells: Cell[]): string[] {
  const head = ["route", "server", "req/s (median)", "min–max", "× raw", "server CPU", "others", "req per CPU-s", "× raw"];
  const rows = cells.map((c) => [c.route, c.server, int(c.rps), `${k(c.min)}–${k(c.max)}`, x(c.ratio), pct(c.cpu), pct(c.others), int(c.per_cpu), x(c.per_cpu_ratio)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const left = (i: number) => i < 2;
  const line = (cols: string[]) => `| ${cols.map((c, i) => (left(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (left(i) ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(head), rule, ...rows.map(line)];
}

export function print_table(cells: Cell[]): void {
  console.log("\nmedian of rounds (markdown):\n");
  for (const l of table_lines(cells)) console.log(l);
}
