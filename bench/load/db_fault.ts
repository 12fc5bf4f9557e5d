/**
 * Database faults: the server runs on PostgreSQL through a TCP proxy we control; under load the
 * proxy is cut (FAULT=cut: every connection dropped, new ones refused) or frozen (FAULT=freeze:
 * connections kept, nothing forwarded) for OUTAGE seconds from OUTAGE_AT, then restored.
 *
 * Checks: before the fault no error; during it requests answer 503 (not 500) and none waits past
 * the server's request deadline; after it the same process serves flows again (recovery time:
 * restore → the first good answer to a request sent after it); every token issued before the fault still works;
 * every code and token the driver saw is stored; codes left unredeemed redeem at most once.
 */
import { freeze_proxy, type FreezeProxy } from "../../tests/ops/freeze_proxy.ts";
import { try_codes } from "./crash.ts";
import { new_ledger, run_load, type Hit } from "./driver.ts";
import { db_report, match_ledger } from "./inspect.ts";
import { RelyingParty } from "./rp.ts";
import { describe_settings, settings } from "./settings.ts";
import { latency_rows, progress, table, verdict } from "./stats.ts";
import { warm_up } from "./sustained.ts";
import { logged_statuses, make_db, seed, server_env, start } from "./target.ts";

const REQUEST_DEADLINE_S = 15;

const ok_status = (h: Hit) => h.status >= 200 && h.status < 400;
const count_by = (hits: Hit[]) => {
  const out: Record<string, number> = {};
  for (const h of hits) {
    const key = h.status === 0 ? (h.error ?? "no answer") : String(h.status);
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
};
const show = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${v} × ${k}`)
    .join(", ") || "–";

export async function db_fault(): Promise<{ text: string; ok: boolean }> {
  const s = settings({ duration_s: 40 });
  const fault = process.env.FAULT ?? "cut";
  const outage_at = Number(process.env.OUTAGE_AT ?? 15) * 1000;
  const outage = Number(process.env.OUTAGE ?? 5) * 1000;
  const db = await make_db("postgres");
  let frozen: FreezeProxy | undefined;
  const out: string[] = [];
  let ok = false;
  try {
    const env = server_env(db, { IDP_REQUEST_TIMEOUT_SECONDS: String(REQUEST_DEADLINE_S) });
    const { users, client } = await seed(env, s.users);
    if (fault === "freeze") {
      const direct = new URL(db.direct);
      frozen = await freeze_proxy(direct.hostname, Number(direct.port || 5432));
      direct.port = String(frozen.port);
      env.DATABASE_URL = direct.toString();
    }
    const server = await start(env);
    try {
      const rp = new RelyingParty([server.url], server.url, client.client_id);
      const options = { bases: [server.url], client, users, timeout_ms: s.timeout_ms, backoff_ms: 200, on_id_token: (t: string, n: string) => rp.verify(t, n) };
      const warm = new_ledger();
      await warm_up({ ...options, ledger: warm }, users.length);

      const ledger = new_ledger();
      const stop = new AbortController();
      const quiet = progress(ledger, `db-fault ${fault}`);
      const t0 = performance.now();
      const loading = run_load({ ...options, ledger }, s.concurrency, stop.signal);
      await Bun.sleep(outage_at);
      const cut = performance.now();
      if (frozen) frozen.freeze();
      else await db.proxy!.stop();
      process.stderr.write(`[db-fault] ${fault} at ${((cut - t0) / 1000).toFixed(1)} s\n`);
      await Bun.sleep(outage);
      if (frozen) frozen.thaw();
      else await db.proxy!.start();
      const restore = performance.now();
      process.stderr.write(`[db-fault] restored at ${((restore - t0) / 1000).toFixed(1)} s\n`);
      await Bun.sleep(Math.max(5000, s.duration_s * 1000 - (restore - t0)));
      stop.abort();
      await loading;
      quiet();

      const end = (h: Hit) => h.t0 + h.ms;
      const before = ledger.hits.filter((h) => end(h) < cut);
      const during = ledger.hits.filter((h) => h.t0 < restore && end(h) >= cut);
      const after = ledger.hits.filter((h) => h.t0 >= restore);
      // Recovery: restore → the first good answer to a request sent after it (every step reads the database).
      const first_ok = Math.min(...after.filter(ok_status).map(end));
      const recovery_ms = Number.isFinite(first_ok) ? first_ok - restore : NaN;
      const first_flow = Math.min(...ledger.flows.filter((f) => f.t0 >= restore).map((f) => f.t0 + f.ms)) - restore;
      const last_error_after = Math.max(-Infinity, ...after.filter((h) => !ok_status(h)).map(end)) - restore;
      const hangs = ledger.hits.filter((h) => h.error === "timeout" || h.ms > (REQUEST_DEADLINE_S + 1) * 1000);
      const flows_after = ledger.flows.filter((f) => f.t0 >= restore).length;

      // Nothing lost: tokens from before the fault, and every code the driver holds.
      const held_before = [...warm.redeemed.values(), ...[...ledger.redeemed.values()].filter((r) => r.at < Date.now() - (performance.now() - cut))];
      const userinfo: Record<string, number> = {};
      for (const r of held_before) {
        const response = await fetch(`${server.url}/userinfo`, { headers: { authorization: `Bearer ${r.access_token}` }, signal: AbortSignal.timeout(20_000) });
        userinfo[response.status] = (userinfo[response.status] ?? 0) + 1;
      }
      const waiting = [...ledger.issued.values()].filter((i) => !ledger.redeemed.has(i.code));
      const codes = await try_codes(server.url, client, waiting, true, ledger);
      const all = { ...new_ledger(), issued: new Map([...warm.issued, ...ledger.issued]), redeemed: new Map([...warm.redeemed, ...ledger.redeemed]) };
      const matched = await match_ledger(db, all);
      const stored = await db_report(db);
      const statuses = logged_statuses(server);
      const unhandled = server.logs().filter((l) => l.msg === "unhandled error").length;
      const still_running = server.proc.exitCode === null && server.proc.signalCode === null;
      const during_counts = count_by(during);

      const checks: [string, boolean][] = [
        ["no error answer before the fault", before.every(ok_status)],
        ["during the fault: 503s, no 500, no request past the deadline", !("500" in during_counts) && hangs.length === 0 && during.every((h) => ok_status(h) || h.status === 503)],
        ["no 500 in the server's log, no unhandled error", !("500" in statuses) && unhandled === 0],
        ["the same process serves flows again", still_running && flows_after > 0 && !Number.isNaN(recovery_ms)],
        ["tokens from before the fault still work", Object.keys(userinfo).every((k) => k === "200")],
        ["every code and token the driver saw is stored", matched.issued_missing === 0 && matched.tokens_missing === 0 && matched.redeemed_not_consumed === 0],
        ["no code redeemed twice", codes.twice === 0 && codes.other.length === 0],
        ["no half-written row", Object.values(stored.bad_rows).every((v) => v === 0)],
        ["every ID Token verified by the RP", rp.stats.failures.length === 0],
      ];
      ok = checks.every(([, passed]) => passed);
      out.push(
        `#### PostgreSQL through a TCP proxy: ${fault === "freeze" ? "frozen (connections kept, nothing forwarded)" : "cut (connections dropped, new ones refused)"} for ${outage / 1000} s`,
        "",
        describe_settings(s).replace(/, \d+ s,/, `, ${s.duration_s} s with the fault from ${outage_at / 1000} s, a failed flow retried after 200 ms,`) +
          ` Server request deadline ${REQUEST_DEADLINE_S} s (IDP_REQUEST_TIMEOUT_SECONDS); driver timeout ${s.timeout_ms / 1000} s.`,
        "",
        table(
          ["phase", "requests", "answers"],
          [
            ["before the fault", String(before.length), show(count_by(before))],
            ["touching the fault", String(during.length), show(during_counts)],
            ["after restore", String(after.length), show(count_by(after))],
          ],
        ),
        "",
        `During the fault: ${during_counts["503"] ?? 0} × 503; slowest answer ${Math.max(0, ...during.map((h) => h.ms)).toFixed(0)} ms; requests past the deadline or unanswered: ${hangs.length}.`,
        `Recovery: first good answer to a request sent after restore ${recovery_ms.toFixed(0)} ms after it; first complete flow begun after restore ${first_flow.toFixed(0)} ms after it (a whole login); last error answer ${Number.isFinite(last_error_after) ? `${last_error_after.toFixed(0)} ms after restore` : "none after restore"}; ${flows_after} flows started after restore completed, same server process (pid ${server.proc.pid}, running: ${still_running}).`,
        `Nothing lost: /userinfo with the ${held_before.length} tokens issued before the fault: ${show(userinfo)}. Codes left unredeemed by failed flows (${waiting.length}), each presented twice at once: ${codes.once} redeemed once, ${codes.refused} refused${codes.other.length ? `, other ${codes.other.join(", ")}` : ""}, ${codes.twice} twice.`,
        `Driver vs database: ${JSON.stringify(matched)}; half-written rows ${JSON.stringify(stored.bad_rows)}; codes consumed without a token: ${stored.consumed_without_token}.`,
        `Server log statuses: ${JSON.stringify(statuses)}; unhandled errors: ${unhandled}. Flows: ${ledger.flows.length} completed, ${ledger.failures.length} failed; RP verified ${rp.stats.verified} ID Tokens, ${rp.stats.failures.length} failures.`,
        "",
        table(["latency over the whole run (ms)", "count", "p50", "p99"], latency_rows(ledger)),
        "",
        verdict(checks),
        "",
      );
    } finally {
      await server.stop();
    }
  } finally {
    await frozen?.close();
    await db.drop();
  }
  return { text: out.join("\n"), ok };
}
