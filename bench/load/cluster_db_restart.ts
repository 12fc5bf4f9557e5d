/**
 * Three instances on one PostgreSQL behind nginx, and PostgreSQL itself restarted under load:
 * at OUTAGE_AT seconds (20) the cluster is stopped (`pg_ctlcluster --skip-systemctl-redirect
 * VERSION main stop -m fast`), started again OUTAGE seconds (3) later, and the load runs on to
 * DURATION (45). Meanwhile each instance's /readyz is polled directly every 200 ms.
 *
 * This stops the SHARED PostgreSQL server: every other user of it loses its connections for the
 * outage. RESTART=proxy instead cuts the TCP proxy between the instances and PostgreSQL (the
 * instances then connect through it), which touches nobody else: use it to try the scenario.
 *
 * Checks: each instance answers /readyz 503 while PostgreSQL is away and 200 after, without a
 * restart (same PIDs, still running); flows complete again after the restore; no 500; then the
 * integrity checks of cluster_setup.ts.
 */
import { new_ledger, run_load, type Hit } from "./driver.ts";
import { describe_settings, settings } from "./settings.ts";
import { latency_rows, progress, table } from "./stats.ts";
import { CLUSTER_SITE, DEPLOY_CLUSTER } from "./nginx.ts";
import { error_logs, logged_statuses } from "./target.ts";
import { count, integrity, merged, report_end, warm_cluster, nginx_error_kinds, show, start_cluster, status_rows, type Cluster } from "./cluster_setup.ts";

type Probe = { at: number; status: number; database?: string };

/** Polls GET /readyz of one instance every `every_ms` until `signal` aborts. */
async function poll_ready(url: string, every_ms: number, signal: AbortSignal, probes: Probe[]): Promise<void> {
  while (!signal.aborted) {
    const at = performance.now();
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      const body = (await response.json().catch(() => ({}))) as { database?: string };
      probes.push({ at, status: response.status, database: body.database });
    } catch {
      probes.push({ at, status: 0 });
    }
    await Bun.sleep(Math.max(0, at + every_ms - performance.now()));
  }
}

const pg_version = () => Bun.spawnSync(["ls", "/etc/postgresql"]).stdout.toString().trim().split("\n")[0]!;

/** Runs pg_ctlcluster without blocking the event loop (the driver and the probes keep running). */
async function pg_ctl(action: "stop" | "start"): Promise<string> {
  const args = ["pg_ctlcluster", "--skip-systemctl-redirect", pg_version(), "main", action, ...(action === "stop" ? ["-m", "fast"] : [])];
  const proc = Bun.spawn(args, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return `\`${args.join(" ")}\` exit ${code}${stderr.trim() ? ` (${stderr.trim().slice(0, 200)})` : ""}`;
}

/** Takes the database away and brings it back; resolves to the moments it was gone and back. */
async function outage(c: Cluster, mode: string, outage_ms: number): Promise<{ down: number; up: number; log: string[] }> {
  const log: string[] = [];
  if (mode === "proxy") {
    await c.db.proxy!.stop();
    const down = performance.now();
    await Bun.sleep(outage_ms);
    await c.db.proxy!.start();
    return { down, up: performance.now(), log: ["TCP proxy cut, then restored"] };
  }
  let down = NaN;
  try {
    log.push(await pg_ctl("stop"));
    down = performance.now();
    await Bun.sleep(outage_ms);
  } finally {
    // Whatever happened, start it again: other users of the server are waiting.
    log.push(await pg_ctl("start"));
  }
  return { down, up: performance.now(), log };
}

export async function cluster_db_restart(): Promise<{ text: string; ok: boolean }> {
  const s = settings({ duration_s: 45 });
  const mode = process.env.RESTART ?? "cluster";
  const outage_at = Number(process.env.OUTAGE_AT ?? 20) * 1000;
  const outage_ms = Number(process.env.OUTAGE ?? 3) * 1000;
  const c = await start_cluster(s.users, mode === "proxy");
  const out: string[] = [];
  let ok = false;
  try {
    const pids = c.servers.map((x) => x.proc.pid);
    const { options, warm } = await warm_cluster(c, s.timeout_ms, 200);

    const ledger = new_ledger();
    const stop = new AbortController();
    const probes: Probe[][] = c.servers.map(() => []);
    const polling = c.servers.map((x, i) => poll_ready(x.url, 200, stop.signal, probes[i]!));
    const quiet = progress(ledger, `cluster-db-restart ${mode}`);
    const t0 = performance.now();
    const loading = run_load({ ...options, ledger }, s.concurrency, stop.signal);
    await Bun.sleep(outage_at);
    const stopping = performance.now();
    process.stderr.write(`[cluster-db-restart] ${mode === "proxy" ? "cutting the proxy" : "stopping PostgreSQL"} at ${((stopping - t0) / 1000).toFixed(1)} s\n`);
    const { down, up, log } = await outage(c, mode, outage_ms);
    process.stderr.write(`[cluster-db-restart] back at ${((up - t0) / 1000).toFixed(1)} s\n`);
    await Bun.sleep(Math.max(5000, t0 + s.duration_s * 1000 - performance.now()));
    stop.abort();
    await Promise.all([loading, ...polling]);
    const wall_s = (performance.now() - t0) / 1000;
    quiet();

    const ok_status = (h: Hit) => h.status >= 200 && h.status < 400;
    const end = (h: Hit) => h.t0 + h.ms;
    const before = ledger.hits.filter((h) => end(h) < stopping);
    const during = ledger.hits.filter((h) => h.t0 < up && end(h) >= stopping);
    const after = ledger.hits.filter((h) => h.t0 >= up);
    const by_status = (hits: Hit[]) => count(hits, (h) => (h.status === 0 ? (h.error ?? "no answer") : String(h.status)));
    const first_ok_after = Math.min(...after.filter(ok_status).map(end)) - up;
    const first_flow_after = Math.min(...ledger.flows.filter((f) => f.t0 >= up).map((f) => f.t0 + f.ms)) - up;
    const flows_after = ledger.flows.filter((f) => f.t0 >= up).length;
    const last_error_after = Math.max(-Infinity, ...after.filter((h) => !ok_status(h)).map(end)) - up;

    // Readiness per instance: the first 503 after the stop, the first 200 after the restore.
    const readiness = probes.map((list, i) => {
      const first_not_ready = list.find((p) => p.at >= stopping && p.status !== 200);
      const not_ready = list.filter((p) => p.at >= stopping && p.at < up + 10_000 && p.status !== 200);
      const ready_again = list.find((p) => p.at >= up && p.status === 200 && (first_not_ready === undefined || p.at > first_not_ready.at));
      const statuses = count(not_ready, (p) => `${p.status} ${p.database ?? ""}`.trim());
      const ready_before = list.filter((p) => p.at < stopping).every((p) => p.status === 200);
      const still_not_ready_late = list.filter((p) => p.at > (ready_again?.at ?? Infinity)).some((p) => p.status !== 200);
      return { i, first_not_ready, ready_again, statuses, ready_before, still_not_ready_late, probes: list.length, only_503: not_ready.every((p) => p.status === 503) };
    });
    const same_pids = c.servers.every((x, i) => x.proc.pid === pids[i] && x.proc.exitCode === null && x.proc.signalCode === null);
    const server_statuses = c.servers.map((x) => logged_statuses(x));
    const unhandled = c.servers.flatMap((x) => x.logs().filter((l) => l.msg === "unhandled error")).length;
    const error_lines = c.servers.flatMap(error_logs);
    const error_kinds = count(error_lines, (l) => String(l.msg).slice(0, 60));
    const start_wall = Date.now() - (performance.now() - t0);
    const access = c.nginx.access().filter((l) => l.at_ms >= start_wall + (stopping - t0) && l.at_ms - l.request_s * 1000 < start_wall + (up - t0));
    // $upstream_addr is the upstream's name when nginx found no instance to try ("no live upstreams").
    const nginx_during = count(
      access,
      (l) => `${l.status} (${l.upstreams.some((u) => !u.startsWith("127.")) ? "no live upstream" : `instances: ${l.upstream_statuses.join(", ") || "none"}`})`,
    );
    const during_counts = by_status(during);

    const checks_integrity = await integrity(c, merged(warm, ledger));
    const checks: [string, boolean][] = [
      ["no error answer before the outage", before.every(ok_status)],
      [
        "every instance ready before, not ready (503) during the outage, ready again after",
        readiness.every((r) => r.ready_before && r.first_not_ready !== undefined && r.only_503 && r.ready_again !== undefined && !r.still_not_ready_late),
      ],
      ["the same processes (same PIDs) serve flows again", same_pids && flows_after > 0 && Number.isFinite(first_flow_after)],
      [
        "no 500 through nginx or in the instances' logs, no unhandled error",
        !("500" in during_counts) && !ledger.hits.some((h) => h.status === 500) && !server_statuses.some((x) => "500" in x) && unhandled === 0,
      ],
      ...checks_integrity.checks,
    ];
    ok = checks.every(([, passed]) => passed);
    const rel = (t: number | undefined, from: number) => (t === undefined ? "never" : `${((t - from) / 1000).toFixed(1)} s`);
    out.push(
      `#### 3 instances on one PostgreSQL behind nginx: ${mode === "proxy" ? "the TCP proxy to PostgreSQL cut" : "PostgreSQL stopped (fast) and started again"} at ${((stopping - t0) / 1000).toFixed(1)} s, ${outage_ms / 1000} s apart`,
      "",
      describe_settings(s).replace(/, \d+ s,/, `, ${s.duration_s} s through nginx (the site of ${CLUSTER_SITE === DEPLOY_CLUSTER ? "deploy/nginx-cluster.conf" : CLUSTER_SITE}),`) +
        ` Failed flows start again after 200 ms. Each instance's /readyz polled directly every 200 ms.`,
      "",
      `Outage: ${log.join("; ")}. PostgreSQL gone ${((down - stopping) / 1000).toFixed(1)} s after the stop was issued; back ${((up - stopping) / 1000).toFixed(1)} s after it (stop issued → start returned).`,
      "",
      table(
        ["instance", "pid before → after", "/readyz probes", "first not-ready after the stop", "not-ready answers", "ready again after the start returned"],
        readiness.map((r) => [
          String(r.i + 1),
          `${pids[r.i]} → ${c.servers[r.i]!.proc.pid}${c.servers[r.i]!.proc.exitCode === null ? " (running)" : " (exited)"}`,
          String(r.probes),
          rel(r.first_not_ready?.at, stopping),
          show(r.statuses),
          rel(r.ready_again?.at, up),
        ]),
      ),
      "",
      table(
        ["phase", "requests", "answers (driver, through nginx)"],
        [
          ["before the outage", String(before.length), show(by_status(before))],
          ["touching the outage", String(during.length), show(during_counts)],
          ["after the restore", String(after.length), show(by_status(after))],
        ],
      ),
      "",
      `nginx during the outage (its status, and what each instance it tried answered): ${show(nginx_during)}. nginx error log over the run: ${show(nginx_error_kinds(c.nginx.errors()))}.`,
      `Recovery: first good answer to a request sent after the start returned: ${first_ok_after.toFixed(0)} ms after it; first complete flow begun after it: ${first_flow_after.toFixed(0)} ms; last error answer ${Number.isFinite(last_error_after) ? `${last_error_after.toFixed(0)} ms after it` : "none after it"}; ${flows_after} flows begun after it completed.`,
      `Flows: ${ledger.flows.length} completed (${(ledger.flows.length / wall_s).toFixed(1)} flows/s over the whole run, outage included), ${ledger.failures.length} failed. Instances' request-log statuses: ${server_statuses.map((x, i) => `${i + 1}: ${show(x)}`).join("; ")}. Error log lines: ${error_lines.length}${error_lines.length ? ` (${show(error_kinds)})` : ""}; unhandled errors: ${unhandled}.`,
      "",
      table(["latency over the whole run (ms)", "count", "p50", "p99"], latency_rows(ledger)),
      "",
      table(["step (driver)", "requests", "2xx/3xx", "4xx", "5xx", "no answer"], status_rows(ledger.hits)),
      "",
      ...report_end(checks_integrity, checks),
    );
  } finally {
    await c.stop();
  }
  return { text: out.join("\n"), ok };
}
