/**
 * Sustained load: CONCURRENCY virtual users run complete flows for DURATION seconds against one
 * `main.ts serve` process. Checks: no failed flow, every code issued was redeemed exactly once
 * (driver's view, stored codes and tokens, sign-in audit events), every ID Token verifies, and
 * the server's memory (RSS sampled from /proc) levels off.
 */
import { new_ledger, run_load, type Ledger } from "./driver.ts";
import { db_report, match_ledger } from "./inspect.ts";
import { RelyingParty } from "./rp.ts";
import { failure_counts, latency_rows, progress, table, verdict } from "./stats.ts";
import { error_logs, logged_statuses, make_db, rss_mib, seed, server_env, start } from "./target.ts";
import { describe_settings, settings, type Settings } from "./settings.ts";

/** One flow per user first (each sees the consent page once), so the timed run is steady state. */
export async function warm_up(o: Parameters<typeof run_load>[0], users: number): Promise<void> {
  const { run_flow } = await import("./driver.ts");
  for (let i = 0; i < users; i += 8) await Promise.all(o.users.slice(i, i + 8).map((u) => run_flow(o, u)));
}

export async function sustained(kind: "sqlite" | "postgres", s: Settings = settings()): Promise<string> {
  const db = await make_db(kind);
  const out: string[] = [];
  try {
    const env = server_env(db);
    const { users, client } = await seed(env, s.users);
    const server = await start(env);
    try {
      const pid = server.proc.pid;
      const rss: [string, number][] = [["started", rss_mib(pid)]];
      const rp = new RelyingParty([server.url], server.url, client.client_id);
      const warm = new_ledger();
      const options = { bases: [server.url], client, users, timeout_ms: s.timeout_ms, on_id_token: (t: string, n: string) => rp.verify(t, n) };
      await warm_up({ ...options, ledger: warm }, users.length);
      rss.push(["after warm-up", rss_mib(pid)]);

      const ledger = new_ledger();
      const stop = new AbortController();
      const sampler = setInterval(() => rss.push([`load ${rss.length - 1}0 s`, rss_mib(pid)]), 10_000);
      const quiet = progress(ledger, `sustained ${kind}`);
      const t0 = performance.now();
      const timer = setTimeout(() => stop.abort(), s.duration_s * 1000);
      await run_load({ ...options, ledger }, s.concurrency, stop.signal);
      const wall_s = (performance.now() - t0) / 1000;
      clearTimeout(timer);
      clearInterval(sampler);
      quiet();
      rss.push(["end of load", rss_mib(pid)]);
      await Bun.sleep(10_000);
      rss.push(["10 s idle", rss_mib(pid)]);

      const all: Ledger = { ...new_ledger(), issued: new Map([...warm.issued, ...ledger.issued]), redeemed: new Map([...warm.redeemed, ...ledger.redeemed]) };
      const stored = await db_report(db);
      const matched = await match_ledger(db, all);
      const bad_answers = ledger.hits.filter((h) => h.status === 0 || h.status >= 400).length;
      const statuses = logged_statuses(server);
      const server_errors = error_logs(server);

      const n = all.issued.size;
      const checks: [string, boolean][] = [
        ["no failed flow, no error answer", ledger.failures.length === 0 && bad_answers === 0],
        ["every ID Token verified by the RP", rp.stats.failures.length === 0 && rp.stats.verified === n],
        ["every code issued was redeemed once (driver)", all.redeemed.size === n],
        [
          "database: codes = consumed = access tokens = sign-ins = driver's codes",
          stored.codes === n && stored.codes_consumed === n && stored.access_tokens === n && stored.login_events === n,
        ],
        ["driver's codes and tokens all stored, nothing else", Object.values(matched).every((v) => v === 0)],
        ["no half-written row", Object.values(stored.bad_rows).every((v) => v === 0) && stored.consumed_without_token === 0],
        ["no 5xx, no error log line", server_errors.length === 0 && !Object.keys(statuses).some((k) => k.startsWith("5"))],
        ["RSS after 10 s idle under twice the warm RSS", rss.at(-1)![1] < 2 * rss[1]![1]],
      ];
      out.push(
        `#### ${kind === "sqlite" ? "SQLite (one WAL file)" : "PostgreSQL (Bun.SQL, pool 10)"}`,
        "",
        describe_settings(s),
        "",
        table(
          ["flows", "flows/s", "failed flows", "error answers", "ID Tokens verified (RP)", "RP failures"],
          [
            [
              String(ledger.flows.length),
              (ledger.flows.length / wall_s).toFixed(1),
              String(ledger.failures.length),
              String(bad_answers),
              String(rp.stats.verified),
              String(rp.stats.failures.length),
            ],
          ],
        ),
        "",
        table(["latency (ms)", "count", "p50", "p99"], latency_rows(ledger)),
        "",
        table(
          ["codes (warm-up + run)", "driver", "database"],
          [
            ["issued", String(all.issued.size), String(stored.codes)],
            ["redeemed", String(all.redeemed.size), `${stored.codes_consumed} consumed, ${stored.access_tokens} access tokens`],
            ["sign-ins", String(all.issued.size), `${stored.login_events} audit \`login\` events`],
          ],
        ),
        "",
        `Driver vs database: ${JSON.stringify(matched)}; half-written rows: ${JSON.stringify(stored.bad_rows)}; consumed without token: ${stored.consumed_without_token}.`,
        `Server: logged statuses ${JSON.stringify(statuses)}; error log lines: ${server_errors.length}.`,
        "",
        table(["server RSS", ...rss.map(([k]) => k)], [["MiB", ...rss.map(([, v]) => v.toFixed(0))]]),
        "",
        verdict(checks),
        "",
      );
      if (ledger.failures.length > 0) out.push("Failures:", ...[...failure_counts(ledger)].map(([k, n]) => `- ${n} × ${k}`), "");
      if (server_errors.length > 0) out.push("Server errors:", ...server_errors.slice(0, 5).map((l) => `- \`${JSON.stringify(l).slice(0, 300)}\``), "");
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
  }
  return out.join("\n");
}
