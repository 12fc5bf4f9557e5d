/**
 * Crash safety: flows run against the server, it is killed with SIGKILL at a random moment in
 * the load, and restarted on the same database (same port, so the same issuer), CRASHES times.
 * After each restart:
 *
 * - SQLite: `PRAGMA integrity_check` on a copy of the files taken right after the kill (the
 *   crashed state, recovered from its WAL by the copy's first open) and on the live file;
 * - no half-written rows, every code the driver was given and every token it holds is stored;
 * - every access token the driver holds works at /userinfo, every ID Token it holds verifies
 *   against the JWKS fetched after the restart;
 * - each code the driver saw issued but never got tokens for is redeemed twice at once: at most
 *   one success; each code already redeemed is refused when presented again.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerProcess } from "../../tests/ops/process.ts";
import { new_ledger, redeem, run_load, type Client, type Ledger } from "./driver.ts";
import { db_report, integrity_check, match_ledger } from "./inspect.ts";
import { RelyingParty } from "./rp.ts";
import { describe_settings, settings } from "./settings.ts";
import { table, verdict } from "./stats.ts";
import { warm_up } from "./sustained.ts";
import { error_logs, make_db, seed, server_env, start, type Db } from "./target.ts";

/** Copies the SQLite file and its -wal/-shm as they are now; returns the copy's path. */
function snapshot(file: string): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "idp-crash-"));
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(file + suffix)) copyFileSync(file + suffix, join(dir, `idp.sqlite${suffix}`));
  return { path: join(dir, "idp.sqlite"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export type CodeOutcomes = { once: number; refused: number; twice: number; other: string[] };

/** Presents each code twice at once (`pairs`) or once: at most one 200 each. */
export async function try_codes(base: string, client: Client, codes: { code: string; verifier: string }[], pairs: boolean, ledger: Ledger): Promise<CodeOutcomes> {
  const out: CodeOutcomes = { once: 0, refused: 0, twice: 0, other: [] };
  for (const { code, verifier } of codes) {
    const responses = await Promise.all((pairs ? [0, 1] : [0]).map(() => redeem(base, client, code, verifier, 20_000)));
    const statuses = responses.map((r) => r.status);
    const ok = responses.filter((r) => r.status === 200);
    if (ok.length > 1) out.twice++;
    else if (ok.length === 1) {
      out.once++;
      const body = (await ok[0]!.json()) as { access_token: string; id_token: string };
      ledger.redeemed.set(code, { code, ...body, nonce: ledger.issued.get(code)?.nonce ?? "", at: Date.now() });
    } else if (statuses.every((s) => s === 400)) out.refused++;
    else out.other.push(statuses.join("/"));
  }
  return out;
}

type Round = {
  kill_at_s: number;
  in_flight: number;
  errors_before_kill: number;
  flows: number;
  issued: number;
  redeemed: number;
  restart_ms: number;
  integrity: string;
  userinfo: Record<string, number>;
  id_tokens: { verified: number; failed: number };
  unredeemed: CodeOutcomes;
  used: CodeOutcomes;
  start_errors: number;
};

async function one_round(
  db: Db,
  server: ServerProcess,
  env: Record<string, string>,
  client: Client,
  options: Omit<Parameters<typeof run_load>[0], "ledger">,
  all: Ledger,
): Promise<{ round: Round; server: ServerProcess }> {
  const s = settings({ duration_s: 10 });
  const ledger = new_ledger();
  const stop = new AbortController();
  const t0 = performance.now();
  const loading = run_load({ ...options, ledger, backoff_ms: 100 }, s.concurrency, stop.signal);
  await Bun.sleep(s.duration_s * 1000 * (0.5 + Math.random() / 2));
  const kill_at = performance.now();
  const in_flight = ledger.hits.filter((h) => h.ms === 0 && h.error === undefined).length;
  server.proc.kill("SIGKILL");
  await server.proc.exited;
  const copy = db.kind === "sqlite" ? snapshot(db.direct) : null;
  await Bun.sleep(300);
  stop.abort();
  await loading;
  const errors_before_kill = ledger.hits.filter((h) => (h.status === 0 || h.status >= 400) && h.t0 + h.ms < kill_at).length;

  const restarting = performance.now();
  const next = await start(env, server.port);
  const restart_ms = performance.now() - restarting;
  let integrity = "n/a (PostgreSQL)";
  if (copy !== null) {
    integrity = `crashed copy: ${integrity_check(copy.path)}, live: ${integrity_check(db.direct)}`;
    copy.remove();
  }

  const userinfo: Record<string, number> = {};
  for (const r of ledger.redeemed.values()) {
    const response = await fetch(`${next.url}/userinfo`, { headers: { authorization: `Bearer ${r.access_token}` }, signal: AbortSignal.timeout(20_000) });
    const key = response.status === 401 && /expired/.test(response.headers.get("www-authenticate") ?? "") ? "401 expired" : String(response.status);
    userinfo[key] = (userinfo[key] ?? 0) + 1;
  }
  const rp = new RelyingParty([next.url], next.url, client.client_id);
  for (const r of ledger.redeemed.values()) await rp.verify(r.id_token, r.nonce).catch(() => {});

  const redeemed_before = [...ledger.redeemed.values()].map((r) => ({ code: r.code, verifier: ledger.issued.get(r.code)!.verifier }));
  const waiting = [...ledger.issued.values()].filter((i) => !ledger.redeemed.has(i.code));
  const unredeemed = await try_codes(next.url, client, waiting, true, ledger);
  const used = await try_codes(next.url, client, redeemed_before, false, new_ledger());

  for (const [code, v] of ledger.issued) all.issued.set(code, v);
  for (const [code, v] of ledger.redeemed) all.redeemed.set(code, v);
  const round: Round = {
    kill_at_s: (kill_at - t0) / 1000,
    in_flight,
    errors_before_kill,
    flows: ledger.flows.length,
    issued: ledger.issued.size,
    redeemed: ledger.redeemed.size - unredeemed.once,
    restart_ms,
    integrity,
    userinfo,
    id_tokens: { verified: rp.stats.verified, failed: rp.stats.failures.length },
    unredeemed,
    used,
    start_errors: error_logs(next).length,
  };
  return { round, server: next };
}

export async function crash(kind: "sqlite" | "postgres"): Promise<{ text: string; ok: boolean }> {
  const s = settings({ duration_s: 10 });
  const crashes = Number(process.env.CRASHES ?? 3);
  const db = await make_db(kind);
  const out: string[] = [];
  let ok = true;
  try {
    const env = server_env(db);
    const { users, client } = await seed(env, s.users);
    let server = await start(env);
    try {
      const options = { bases: [server.url], client, users, timeout_ms: s.timeout_ms };
      const all = new_ledger();
      await warm_up({ ...options, ledger: all }, users.length);
      const rounds: Round[] = [];
      for (let n = 0; n < crashes; n++) {
        process.stderr.write(`[crash] round ${n + 1}/${crashes}\n`);
        const result = await one_round(db, server, env, client, options, all);
        server = result.server;
        rounds.push(result.round);
      }
      const stored = await db_report(db);
      const matched = await match_ledger(db, all);
      const r = rounds;
      const checks: [string, boolean][] = [
        ["no error answer before the kill", r.every((x) => x.errors_before_kill === 0)],
        ["integrity_check ok (crashed copy and live file)", r.every((x) => x.integrity.startsWith("n/a") || x.integrity === "crashed copy: ok, live: ok")],
        ["restart without error log lines", r.every((x) => x.start_errors === 0)],
        ["every access token held works at /userinfo (or expired)", r.every((x) => Object.keys(x.userinfo).every((k) => k === "200" || k === "401 expired"))],
        ["every ID Token held verifies after the restart", r.every((x) => x.id_tokens.failed === 0)],
        [
          "no code redeemed twice; used codes refused",
          r.every((x) => x.unredeemed.twice === 0 && x.unredeemed.other.length === 0 && x.used.once === 0 && x.used.twice === 0 && x.used.other.length === 0),
        ],
        ["no half-written row", Object.values(stored.bad_rows).every((v) => v === 0)],
        ["every code and token the driver saw is stored", matched.issued_missing === 0 && matched.tokens_missing === 0 && matched.redeemed_not_consumed === 0],
      ];
      ok = checks.every(([, passed]) => passed);
      out.push(
        `#### ${kind === "sqlite" ? "SQLite" : "PostgreSQL"}: ${crashes} × SIGKILL under load`,
        "",
        describe_settings(s).replace(/, \d+ s,/, `, killed at a random moment in the second half of each ${s.duration_s} s load,`),
        "",
        table(
          [
            "round",
            "killed at (s)",
            "requests in flight",
            "flows done",
            "codes issued / redeemed (driver)",
            "restart (ms)",
            "integrity_check",
            "/userinfo with held tokens",
            "ID Tokens verify",
            "unredeemed codes: once / refused / twice",
            "used codes again: refused / accepted",
          ],
          r.map((x, i) => [
            String(i + 1),
            x.kill_at_s.toFixed(1),
            String(x.in_flight),
            String(x.flows),
            `${x.issued} / ${x.redeemed}`,
            x.restart_ms.toFixed(0),
            x.integrity,
            Object.entries(x.userinfo)
              .map(([k, v]) => `${v} × ${k}`)
              .join(", ") || "–",
            `${x.id_tokens.verified} ok, ${x.id_tokens.failed} failed`,
            `${x.unredeemed.once} / ${x.unredeemed.refused} / ${x.unredeemed.twice}${x.unredeemed.other.length ? ` (other: ${x.unredeemed.other.join(", ")})` : ""}`,
            `${x.used.refused} / ${x.used.once + x.used.twice}${x.used.other.length ? ` (other: ${x.used.other.join(", ")})` : ""}`,
          ]),
        ),
        "",
        `Database after the last restart: ${stored.codes} codes (${stored.codes_consumed} consumed), ${stored.access_tokens} access tokens, ${stored.login_events} sign-in events; half-written rows ${JSON.stringify(stored.bad_rows)}; codes consumed without a token (the server died between the two writes, fail-closed): ${stored.consumed_without_token}.`,
        `Driver vs database: ${JSON.stringify(matched)} (stored_not_seen: codes whose redirect died with the server).`,
        "",
        verdict(checks),
        "",
      );
    } finally {
      await server.stop();
    }
  } finally {
    await db.drop();
  }
  return { text: out.join("\n"), ok };
}
