// The markdown of bench/oidc's results: medians of the rounds, ours against the peer, the
// issue's targets beside each ratio, and the servers' memory.
import type { MemoryLine } from "./index.ts";

/** One case on one server in one round. `rate` is requests/s (wrk) or flows/s (driver). */
export type Measure = {
  rate: number;
  /** Requests or flows per CPU-second of the server process. */
  per_cpu: number;
  p50_ms: number;
  p99_ms: number;
  /** Cores' worth of CPU the server used (1 = all of its core). */
  server_cpu: number;
  /** Cores' worth of CPU everything else on the machine used meanwhile. */
  others: number;
  /** The flow driver's share of its core. */
  driver_cpu?: number;
  errors: number;
  first_error: string | null;
  rss_peak_kib: number;
};

type CaseInfo = { name: string; kind: "wrk" | "flow"; concurrency?: number };

export type Report = {
  date: string;
  machine: string;
  versions: { bun: string; node: string; oidc_provider: string; undici: string };
  client: string;
  argon2_ms: number;
  argon2_impl: string;
  load: string;
  options: { rounds: number; seconds: number; warmup: number; connections: number };
  cases: CaseInfo[];
  results: Map<string, Measure[]>;
  memory: Map<string, MemoryLine[]>;
};

/** Keycloak's published sizing: password logins per second per vCPU. */
export const KEYCLOAK_LOGINS_PER_VCPU = 15;

/** The issue's targets: ratio ours/peer per CPU-second of the server (first-login: logins per CPU-s). */
function target_of(name: string): { ratio?: number; logins?: number } {
  if (name === "discovery" || name === "jwks") return { ratio: 5 };
  if (name === "client_credentials" || name === "introspection" || name === "userinfo") return { ratio: 2 };
  if (name.startsWith("session-")) return { ratio: 3 };
  if (name.startsWith("first-login-")) return { logins: 2 * KEYCLOAK_LOGINS_PER_VCPU };
  return {};
}

export function median(xs: number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-");
const num = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "-");
const x = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "-");
const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : "-");
const mib = (kib: number) => (Number.isFinite(kib) ? `${Math.round(kib / 1024)}` : "-");

function table(head: string[], rows: string[][], left = 1): string[] {
  const line = (cols: string[]) => `| ${cols.join(" | ")} |`;
  const rule = `|${head.map((_, i) => (i < left ? " --- " : " ---: ")).join("|")}|`;
  return [line(head), rule, ...rows.map(line)];
}

export function render_section(r: Report): string {
  const m = (server: string, name: string) => r.results.get(`${server} ${name}`) ?? [];
  const med = (server: string, name: string, f: (x: Measure) => number) => median(m(server, name).map(f));
  const label = (c: CaseInfo) =>
    c.kind === "wrk"
      ? ({ discovery: "discovery", jwks: "JWKS", client_credentials: "client_credentials token", introspection: "introspection", userinfo: "userinfo" }[c.name] ?? c.name)
      : `${c.name.startsWith("session") ? "session flow" : c.name.startsWith("device") ? "device flow (RFC 8628, ours only)" : c.name.startsWith("dpop") ? "DPoP-bound session flow (RFC 9449, ours only)" : "first-login flow"}, ${c.concurrency} concurrent`;

  const rows = r.cases.map((c) => {
    const unit = c.kind === "wrk" ? "req" : "flows";
    const ours = med("ours", c.name, (v) => v.rate);
    const peer = med("peer", c.name, (v) => v.rate);
    const ours_cpu = med("ours", c.name, (v) => v.per_cpu);
    const peer_cpu = med("peer", c.name, (v) => v.per_cpu);
    const ratio_cpu = ours_cpu / peer_cpu;
    const t = target_of(c.name);
    let verdict = "-";
    if (t.ratio !== undefined && Number.isFinite(ratio_cpu)) verdict = `≥ ${t.ratio}×: ${ratio_cpu >= t.ratio ? "met" : "missed"}`;
    if (t.logins !== undefined && Number.isFinite(ours_cpu)) verdict = `≥ ${t.logins} logins/CPU-s: ${ours_cpu >= t.logins ? "met" : "missed"}`;
    const errors = [...m("ours", c.name), ...m("peer", c.name)].reduce((a, v) => a + v.errors, 0);
    return [
      `${label(c)} (${unit})`,
      int(ours),
      int(peer),
      x(ours / peer),
      int(ours_cpu),
      int(peer_cpu),
      x(ratio_cpu),
      `${num(med("ours", c.name, (v) => v.p50_ms))} / ${num(med("ours", c.name, (v) => v.p99_ms))}`,
      `${num(med("peer", c.name, (v) => v.p50_ms))} / ${num(med("peer", c.name, (v) => v.p99_ms))}`,
      `${pct(med("ours", c.name, (v) => v.server_cpu))} / ${pct(med("peer", c.name, (v) => v.server_cpu))}`,
      `${int(1e6 / ours_cpu)} / ${int(1e6 / peer_cpu)}`,
      verdict + (errors > 0 ? ` (${errors} errors)` : ""),
    ];
  });

  const mem_rows = ["ours", "peer"]
    .filter((s) => r.memory.has(s))
    .map((s) => {
      const lines = r.memory.get(s)!;
      const peak = (name: string) => med(s, name, (v) => v.rss_peak_kib);
      return [
        s,
        mib(median(lines.map((l) => l.start_kib))),
        mib(peak("session-32")),
        mib(peak("first-login-32")),
        mib(median(lines.map((l) => l.after_kib))),
        mib(median(lines.map((l) => l.hwm_kib))),
      ];
    });

  const driver = r.cases
    .filter((c) => c.kind === "flow")
    .map((c) => `${c.name} ${pct(med("ours", c.name, (v) => v.driver_cpu ?? Number.NaN))}/${pct(med("peer", c.name, (v) => v.driver_cpu ?? Number.NaN))}`)
    .join(", ");
  const others = median([...r.results.values()].flat().map((v) => v.others));
  const logins = r.cases.filter((c) => c.name.startsWith("first-login")).map((c) => `${c.concurrency} concurrent: ${num(med("ours", c.name, (v) => v.per_cpu))}`);

  return [
    `\`node_modules/.bin/bun run bench/oidc/index.ts\` — ours (\`bun main.ts serve\`, durable SQLite file, argon2id m=19456 KiB t=2 p=1, request log off) against oidc-provider ${r.versions.oidc_provider} on Node ${r.versions.node} (in-memory adapter), alternated, each started fresh per round.`,
    "",
    `Date: ${r.date} · ${r.machine} · Node ${r.versions.node} · oidc-provider ${r.versions.oidc_provider} · flow driver: Bun ${r.client}${r.client === "undici" ? ` (undici ${r.versions.undici})` : ""} · server on CPU 0, wrk and driver on CPU 1 (taskset) · median of ${r.options.rounds} rounds, ${r.options.seconds} s each after ${r.options.warmup} s warm-up · wrk -t1 -c${r.options.connections} · load average ${r.load} · other processes' CPU during runs (median): ${pct(others)} of a core`,
    "",
    ...table(
      [
        "case",
        "ours /s",
        "peer /s",
        "× /s",
        "ours per CPU-s",
        "peer per CPU-s",
        "× per CPU-s",
        "ours p50 / p99 ms",
        "peer p50 / p99 ms",
        "server core use ours / peer",
        "server CPU µs each ours / peer",
        "target (per CPU-s)",
      ],
      rows,
    ),
    "",
    "Server memory (MiB, median of rounds): RSS when started and idle, peak RSS sampled every 100 ms during the 32-concurrent flows, RSS 2 s after the last case, and VmHWM at the end.",
    "",
    ...table(["server", "RSS start", "peak, session 32", "peak, first-login 32", "RSS after", "VmHWM"], mem_rows),
    "",
    `- argon2id verification at our parameters (${r.argon2_impl === "libsodium" ? "libsodium on a worker thread, the default" : "Bun.password"}): ${num(r.argon2_ms)} ms CPU (best of 5), a ceiling of ${num(1000 / r.argon2_ms)} password logins per CPU-second before any other work.`,
    `- Password logins per CPU-second of our server (first-login flows: login page, argon2id, session, consent, code, token, userinfo): ${logins.join(", ")}. Keycloak's published sizing is ${KEYCLOAK_LOGINS_PER_VCPU} per vCPU; the target is twice that.`,
    `- The peer's first-login flow checks the password with a plain comparison (Node 20 has no argon2id), so its first-login numbers are the interaction machinery only and are not a target.`,
    `- Flow driver CPU (its core; ours/peer): ${driver}.`,
  ].join("\n");
}
