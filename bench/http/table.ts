// The result table: one row per server, per route the median req/s and its ratio to raw Bun.serve.
export type Cell = { server: string; route: string; rps: number; min: number; max: number; p99_ms: number; ratio: number | undefined };

const k = (n: number) => `${(n / 1000).toFixed(1)}k`;

export function table_lines(cells: Cell[], servers: string[], routes: string[]): string[] {
  const head = ["server", ...routes.flatMap((r) => [`${r} req/s (min–max)`, "× raw"])];
  const rows = servers.map((server) => [
    server,
    ...routes.flatMap((route) => {
      const c = cells.find((x) => x.server === server && x.route === route);
      if (!c || !Number.isFinite(c.rps)) return ["-", "-"];
      return [`${Math.round(c.rps).toLocaleString("en-US")} (${k(c.min)}–${k(c.max)})`, c.ratio === undefined ? "-" : c.ratio.toFixed(2)];
    }),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cols: string[]) => `| ${cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  return [line(head), `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`, ...rows.map(line)];
}

export function print_table(cells: Cell[], servers: string[], routes: string[]): void {
  console.log("\nmedian of rounds (markdown):\n");
  for (const l of table_lines(cells, servers, routes)) console.log(l);
}
