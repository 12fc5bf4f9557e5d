/**
 * Three instances on one PostgreSQL behind nginx (deploy/nginx-cluster.conf), under load, one
 * instance killed: CONCURRENCY virtual users run complete flows through nginx for DURATION
 * seconds; at a third of it the second instance gets SIGKILL, and it is started again on the
 * same port RESTART_AFTER seconds later (5).
 *
 * Reported: flows/s, p50/p99 of the flow and each step, the statuses per step, every 5xx (or
 * unanswered request) the driver saw and whether it was in flight at the kill, and from nginx's
 * access log which instances each failed request went to and how many requests nginx retried
 * on another instance. Then the integrity checks of cluster_setup.ts.
 */
import { new_ledger, run_load, type Hit } from "./driver.ts";
import { describe_settings, settings } from "./settings.ts";
import { failure_counts, latency_rows, progress, table } from "./stats.ts";
import { error_logs, logged_statuses, rss_mib, start } from "./target.ts";
import { count, integrity, merged, report_end, warm_cluster, INSTANCES, nginx_error_kinds, show, start_cluster, status_rows } from "./cluster_setup.ts";
import { CLUSTER_SITE, DEPLOY_CLUSTER, type AccessLine } from "./nginx.ts";

const bad = (h: Hit) => h.status === 0 || h.status >= 500;

export async function cluster(): Promise<{ text: string; ok: boolean }> {
  const s = settings({ duration_s: 60 });
  const restart_after_ms = Number(process.env.RESTART_AFTER ?? 5) * 1000;
  const c = await start_cluster(s.users);
  const out: string[] = [];
  let ok = false;
  try {
    const { options, warm } = await warm_cluster(c, s.timeout_ms, 100);

    const ledger = new_ledger();
    const stop = new AbortController();
    const quiet = progress(ledger, "cluster");
    const t0 = performance.now();
    const loading = run_load({ ...options, ledger }, s.concurrency, stop.signal);
    await Bun.sleep((s.duration_s * 1000) / 3);

    const victim = c.servers[1]!;
    const in_flight_driver = ledger.hits.filter((h) => h.ms === 0 && h.error === undefined).length;
    const victim_rss = rss_mib(victim.proc.pid);
    const kill_at = performance.now();
    const kill_wall = Date.now();
    victim.proc.kill("SIGKILL");
    await victim.proc.exited;
    // The kernel tears the process and its sockets down after the signal: a request nginx wrote
    // to a kept-alive connection meanwhile reached the dying instance too. The window ends when
    // the bench saw the exit, plus 100 ms for nginx to process the closed connections.
    const exited_at = performance.now();
    const window_end = exited_at + 100;
    process.stderr.write(`[cluster] SIGKILL instance 2 (pid ${victim.proc.pid}) at ${((kill_at - t0) / 1000).toFixed(1)} s\n`);
    await Bun.sleep(Math.max(0, kill_at + restart_after_ms - performance.now()));
    const restarting = performance.now();
    const restarted = await start(c.env, victim.port);
    const restarted_at = performance.now();
    const restarted_wall = Date.now();
    c.servers[1] = restarted;
    c.all_servers.push(restarted);
    process.stderr.write(`[cluster] instance 2 back (pid ${restarted.proc.pid}) at ${((restarted_at - t0) / 1000).toFixed(1)} s\n`);
    await Bun.sleep(Math.max(0, t0 + s.duration_s * 1000 - performance.now()));
    stop.abort();
    await loading;
    const wall_s = (performance.now() - t0) / 1000;
    quiet();

    // The driver's 5xx and unanswered requests: in flight at the kill, or not.
    const failed_hits = ledger.hits.filter(bad);
    const in_flight_at_kill = (h: Hit) => h.t0 <= window_end && h.t0 + h.ms >= kill_at;
    const at_kill = failed_hits.filter(in_flight_at_kill);
    const elsewhere = failed_hits.filter((h) => !in_flight_at_kill(h));
    // nginx's view: requests (of the timed load) that went to the killed instance and failed there.
    const victim_addr = `127.0.0.1:${victim.port}`;
    const access = c.nginx.access().filter((l) => l.at_ms - l.request_s * 1000 >= kill_wall - (kill_at - t0) - 1);
    const touched_victim = (l: AccessLine) => l.upstreams.some((u, i) => u === victim_addr && !/^[234]/.test(l.upstream_statuses[i] ?? "-"));
    const nginx_5xx = access.filter((l) => l.status >= 500);
    const nginx_5xx_victim = nginx_5xx.filter(touched_victim);
    const retried = access.filter((l) => l.upstreams.length > 1);
    const retried_ok = retried.filter((l) => l.status < 500);
    const tried = (l: AccessLine) => l.upstreams.map((u, i) => `${u === victim_addr ? "killed" : "other"} ${l.upstream_statuses[i] ?? "?"}`).join(", ") || "none";
    const retried_by_method = count(retried, (l) => `${l.method} ${l.path.replace(/[^/]{16,}/g, "…")} ${l.status} (tried ${tried(l)})`);
    const nginx_5xx_detail = count(nginx_5xx, (l) => `${l.method} ${l.path.replace(/[^/]{16,}/g, "…")} ${l.status} (tried ${tried(l)})`);
    const by_instance = c.all_servers.map((x, i) => `${i < INSTANCES ? `instance ${i + 1}` : "instance 2 restarted"} (pid ${x.proc.pid}): ${show(logged_statuses(x))}`);
    const served_after_restart = Object.values(logged_statuses(restarted)).reduce((a, b) => a + b, 0);
    const server_errors = c.all_servers.flatMap(error_logs);

    const checks_integrity = await integrity(c, merged(warm, ledger));
    const upstream_error_kinds = nginx_error_kinds(c.nginx.errors());

    const checks: [string, boolean][] = [
      ["every 5xx or unanswered request was in flight at the killed instance (sent before it was gone)", elsewhere.length === 0],
      ["every 5xx nginx logged went to the killed instance", nginx_5xx.length === nginx_5xx_victim.length],
      ["the restarted instance served requests", served_after_restart > 0],
      ["no error log line on any instance", server_errors.length === 0],
      ...checks_integrity.checks,
    ];
    ok = checks.every(([, passed]) => passed);
    const k = (kill_at - t0) / 1000;
    out.push(
      `#### ${INSTANCES} instances on one PostgreSQL behind nginx: instance 2 killed (SIGKILL) at ${k.toFixed(1)} s, restarted ${((restarting - kill_at) / 1000).toFixed(1)} s later`,
      "",
      describe_settings(s).replace(
        /, \d+ s,/,
        `, ${s.duration_s} s through nginx (one worker process, the site of ${CLUSTER_SITE === DEPLOY_CLUSTER ? "deploy/nginx-cluster.conf" : CLUSTER_SITE} on a loopback port without TLS),`,
      ) +
        ` Instances: \`bun main.ts serve\` ×${INSTANCES}, IDP_TRUST_PROXY=true, issuer = nginx's URL, PostgreSQL directly (pool 10 each); a failed flow starts again after 100 ms.`,
      "",
      table(
        [
          "flows",
          "flows/s",
          "failed flows",
          "5xx or unanswered (driver)",
          "of them in the kill window",
          "requests in flight at the kill (all instances)",
          "SIGKILL → exit seen (ms)",
          "restart to ready (ms)",
        ],
        [
          [
            String(ledger.flows.length),
            (ledger.flows.length / wall_s).toFixed(1),
            String(ledger.failures.length),
            String(failed_hits.length),
            String(at_kill.length),
            String(in_flight_driver),
            (exited_at - kill_at).toFixed(0),
            (restarted_at - restarting).toFixed(0),
          ],
        ],
      ),
      "",
      table(["latency (ms)", "count", "p50", "p99"], latency_rows(ledger)),
      "",
      table(["step (driver)", "requests", "2xx/3xx", "4xx", "5xx", "no answer"], status_rows(ledger.hits)),
      "",
      `5xx or unanswered, seen by the driver (kill window: requests still unanswered at the SIGKILL or sent before 100 ms after the bench saw the process exit, ${(window_end - kill_at).toFixed(0)} ms in all): ${show(count(failed_hits, (h) => `${h.step} ${h.status || h.error} (sent ${h.t0 < kill_at ? "before the kill" : `${(h.t0 - kill_at).toFixed(0)} ms after the kill`}${in_flight_at_kill(h) ? "" : ", OUTSIDE the kill window"})`))}.`,
      `nginx (${access.length} requests logged during the load): 5xx ${nginx_5xx.length} (${nginx_5xx_victim.length} after trying the killed instance): ${show(nginx_5xx_detail)}. Requests sent to another instance after a failure: ${retried.length} (${retried_ok.length} answered < 500): ${show(retried_by_method)}. nginx error log: ${show(upstream_error_kinds)}.`,
      `Instances (request log statuses): ${by_instance.join("; ")}. Killed instance's RSS before the kill: ${victim_rss.toFixed(0)} MiB. Restarted at ${((restarted_wall - kill_wall) / 1000).toFixed(1)} s after the kill; error log lines: ${server_errors.length}.`,
      "",
      ...report_end(checks_integrity, checks),
    );
    if (ledger.failures.length > 0) out.push("Failed flows:", ...[...failure_counts(ledger)].map(([key, n]) => `- ${n} × ${key}`), "");
  } finally {
    await c.stop();
  }
  return { text: out.join("\n"), ok };
}
