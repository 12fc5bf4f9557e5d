/**
 * Key rotation under load: while flows run, `bun run main.ts keys rotate` is run against the
 * same database ROTATIONS times, every ROTATE_EVERY seconds. On PostgreSQL two instances share the
 * database (a flow's pages go to one at random, its /token and /userinfo to one at random); on
 * SQLite one instance. Servers notice rotations by polling the store (IDP_KEYS_POLL_SECONDS,
 * default 5 as in production).
 *
 * The relying party verifies each ID Token as it arrives with jose against its cached JWKS,
 * fetched again (from the instances in turn) when the token names an unknown kid. Afterwards
 * every ID Token is verified once more against a fresh JWKS from each instance. The strictest
 * check runs too: each ID Token against the JWKS of another instance (on SQLite: the same one)
 * fetched right after the token arrived.
 */
import { cli_json, type ServerProcess } from "../../tests/ops/process.ts";
import { new_ledger, run_load } from "./driver.ts";
import { RelyingParty } from "./rp.ts";
import { describe_settings, settings } from "./settings.ts";
import { failure_counts, latency_rows, progress, table, verdict } from "./stats.ts";
import { warm_up } from "./sustained.ts";
import { error_logs, make_db, seed, server_env, start } from "./target.ts";

type Rotated = { at_s: number; ms: number; rs256: string; ok: boolean; error?: string };

export async function rotation(kind: "sqlite" | "postgres"): Promise<{ text: string; ok: boolean }> {
  const rotations = Number(process.env.ROTATIONS ?? 6);
  const every_s = Number(process.env.ROTATE_EVERY ?? 8);
  const poll_s = process.env.KEYS_POLL ?? "5";
  const s = settings();
  const db = await make_db(kind);
  const out: string[] = [];
  let ok = false;
  const servers: ServerProcess[] = [];
  try {
    const env = server_env(db, { IDP_KEYS_POLL_SECONDS: poll_s });
    const { users, client } = await seed(env, s.users);
    servers.push(await start(env));
    const issuer = servers[0]!.url;
    if (kind === "postgres") servers.push(await start({ ...env, IDP_ISSUER: issuer }));
    const bases = servers.map((x) => x.url);
    const rp = new RelyingParty(bases, issuer, client.client_id);
    // The RP's own check (cached JWKS), and the JWKS of another instance fetched right after receipt.
    const other = (base: string) => bases.find((b) => b !== base) ?? base;
    const on_id_token = async (t: string, n: string, base: string) => void (await Promise.all([rp.verify(t, n), rp.verify_fresh(t, n, other(base))]));
    const options = { bases, client, users, timeout_ms: s.timeout_ms, on_id_token };
    const warm = new_ledger();
    await warm_up({ ...options, ledger: warm }, users.length);

    const ledger = new_ledger();
    const stop = new AbortController();
    const quiet = progress(
      ledger,
      `rotation ${kind}`,
      5000,
      () => `, kids ${rp.stats.kids.size}, RP failures ${rp.stats.failures.length}, on receipt ${rp.stats.fresh.failures.length}`,
    );
    const t0 = performance.now();
    const loading = run_load({ ...options, ledger }, s.concurrency, stop.signal);
    // On a fixed schedule: a rotation that takes longer than ROTATE_EVERY overlaps the next one.
    const rotate = async (n: number): Promise<Rotated> => {
      await Bun.sleep(Math.max(0, t0 + (n + 1) * every_s * 1000 - performance.now()));
      const started = performance.now();
      const at_s = (started - t0) / 1000;
      process.stderr.write(`[rotation] ${n + 1}/${rotations} at ${at_s.toFixed(1)} s\n`);
      try {
        const result = await cli_json<{ rotated: Record<string, string> }>(["keys", "rotate"], env);
        return { at_s, ms: performance.now() - started, rs256: result.rotated.RS256 ?? "?", ok: true };
      } catch (error) {
        return { at_s, ms: performance.now() - started, rs256: "", ok: false, error: String(error).slice(0, 200) };
      }
    };
    const rotated = await Promise.all(Array.from({ length: rotations }, (_, n) => rotate(n)));
    await Bun.sleep(every_s * 1000);
    stop.abort();
    await loading;
    quiet();
    const wall_s = (performance.now() - t0) / 1000;

    // Afterwards: every ID Token against a fresh JWKS from each instance.
    const late: Record<string, number> = {};
    for (const base of bases) {
      const fresh = new RelyingParty([base], issuer, client.client_id);
      await fresh.refresh();
      for (const r of [...warm.redeemed.values(), ...ledger.redeemed.values()]) await fresh.verify(r.id_token, r.nonce).catch(() => {});
      late[base] = fresh.stats.failures.length;
    }
    const server_errors = servers.flatMap(error_logs);
    const tokens = warm.redeemed.size + ledger.redeemed.size;
    const checks: [string, boolean][] = [
      ["every rotation succeeded", rotated.length === rotations && rotated.every((r) => r.ok)],
      ["no ID Token failed the RP's verification", rp.stats.failures.length === 0 && rp.stats.verified === tokens],
      ["every ID Token verifies against another instance's JWKS fetched on receipt", rp.stats.fresh.failures.length === 0 && rp.stats.fresh.verified === tokens],
      ["every ID Token verifies afterwards against each instance's JWKS", Object.values(late).every((n) => n === 0)],
      ["no failed flow", ledger.failures.length === 0],
      ["no error log line", server_errors.length === 0],
    ];
    ok = checks.every(([, passed]) => passed);
    out.push(
      `#### ${kind === "postgres" ? "PostgreSQL, two instances" : "SQLite, one instance"}: ${rotations} rotations, one every ${every_s} s, servers polling every ${poll_s} s`,
      "",
      describe_settings({ ...s, duration_s: Math.round(wall_s) }),
      "",
      table(
        [
          "flows",
          "flows/s",
          "failed flows",
          "ID Tokens",
          "distinct kids signing",
          "RP JWKS fetches",
          "refetches for an unknown kid",
          "RP verification failures",
          "failures against another instance's JWKS on receipt",
          "failures against a fresh JWKS afterwards",
        ],
        [
          [
            String(ledger.flows.length),
            (ledger.flows.length / wall_s).toFixed(1),
            String(ledger.failures.length),
            String(tokens),
            String(rp.stats.kids.size),
            String(rp.stats.jwks_fetches),
            String(rp.stats.refetches_for_unknown_kid),
            String(rp.stats.failures.length),
            String(rp.stats.fresh.failures.length),
            Object.values(late).join(" / "),
          ],
        ],
      ),
      "",
      `Rotations (\`keys rotate\`, seconds into the load → new RS256 kid, CLI time): ${rotated.map((r) => (r.ok ? `${r.at_s.toFixed(0)} s → ${r.rs256.slice(0, 8)}… (${(r.ms / 1000).toFixed(1)} s)` : `${r.at_s.toFixed(0)} s FAILED ${r.error}`)).join("; ")}.`,
      "",
      table(["latency (ms)", "count", "p50", "p99"], latency_rows(ledger)),
      "",
    );
    for (const [what, list] of [
      ["RP failures", rp.stats.failures],
      ["Failures against another instance's JWKS on receipt", rp.stats.fresh.failures],
    ] as const) {
      if (list.length > 0) out.push(`${what}:`, ...list.slice(0, 5).map((f) => `- kid ${f.kid.slice(0, 8)}…: ${f.error}`), "");
    }
    if (ledger.failures.length > 0) out.push("Failed flows:", ...[...failure_counts(ledger)].map(([k, n]) => `- ${n} × ${k}`), "");
    out.push(verdict(checks), "");
  } finally {
    for (const server of servers) await server.stop();
    await db.drop();
  }
  return { text: out.join("\n"), ok };
}
