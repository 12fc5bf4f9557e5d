/**
 * EXPLAIN (ANALYZE, BUFFERS) of the hot queries on the seeded database, with the text the
 * PostgreSQL adapter sends (src/store/postgres/*.ts) and real keys. Writes (code consumption, the
 * purge's batch deletes) run inside a transaction that is rolled back, so the data is unchanged.
 */
import { SQL } from "bun";
import { DEFAULT_PURGE_BATCH } from "../../src/store/default_limits.ts";
import { purge_targets } from "../../src/store/purge.ts";
import { expired, is_refresh, session_id_hash, token_hash, username } from "./shape.ts";
import type { Meta } from "./seed.ts";

export type Plan = { name: string; query: string; plan: string[]; seq_scan_on: string[]; brief: boolean };

const BIG = ["users", "sessions", "session_clients", "grants", "tokens", "codes", "interactions"];

/** A live, non-refresh row number near the middle of 1..n. */
function live(n: number): number {
  for (let i = Math.floor(n / 2) + 2; ; i++) if (!expired(i) && !is_refresh(i) && i % 10 !== 9) return i;
}

export async function explain_hot_queries(meta: Meta): Promise<Plan[]> {
  const sql = new SQL(meta.url, { max: 1 });
  const now = Math.floor(Date.now() / 1000);
  const u = live(meta.counts.users);
  const [user] = (await sql`SELECT id, username_key, email FROM users WHERE username_key = ${username(u)}`) as { id: string; username_key: string; email: string }[];
  // Any stored code: the plan of the single-use UPDATE does not depend on its state.
  const [code] = (await sql`SELECT code_hash FROM codes ORDER BY code_hash LIMIT 1 OFFSET ${Math.floor(meta.counts.codes / 2)}`) as { code_hash: string }[];
  // The statement of src/store/postgres/index.ts purge_expired, for one target.
  const purge_batch = (table: string) => {
    const target = purge_targets.find((t) => t.table === table)!;
    return `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${target.expired.replaceAll(":now", "$1")} LIMIT $2 FOR UPDATE SKIP LOCKED))`;
  };
  const cases: { name: string; query: string; params: unknown[]; write?: boolean; brief?: boolean }[] = [
    { name: "token by hash (introspect, userinfo, refresh)", query: "SELECT * FROM tokens WHERE token_hash = $1", params: [token_hash(live(meta.counts.tokens), meta.now)] },
    { name: "session by id hash (/authorize with a cookie)", query: "SELECT * FROM sessions WHERE id_hash = $1", params: [session_id_hash(u)] },
    { name: "user by username (sign-in)", query: "SELECT * FROM users WHERE username_key = $1", params: [user!.username_key] },
    { name: "users by e-mail", query: "SELECT * FROM users WHERE lower(email) = lower($1) ORDER BY created_at, id", params: [user!.email] },
    { name: "grant lookup (consent on record)", query: "SELECT * FROM grants WHERE user_id = $1 AND client_id = $2", params: [user!.id, meta.client.client_id] },
    {
      name: "consume code",
      query: "UPDATE codes SET consumed_at = $2 WHERE code_hash = $1 AND consumed_at IS NULL RETURNING *",
      params: [code?.code_hash ?? "none", now],
      write: true,
    },
    { name: "sessions of a user (account page, logout everywhere)", query: "SELECT * FROM sessions WHERE user_id = $1 ORDER BY created_at, id_hash", params: [user!.id] },
    { name: "purge batch: tokens", query: purge_batch("tokens"), params: [now, DEFAULT_PURGE_BATCH], write: true },
    { name: "purge batch: sessions (cascades to session_clients)", query: purge_batch("sessions"), params: [now, DEFAULT_PURGE_BATCH], write: true },
    // Not what the store sends: the same batch taken in expiry order, for comparison (see RESULTS).
    {
      name: "for comparison only: tokens batch in expiry order",
      query: purge_batch("tokens").replace(" LIMIT $2", " ORDER BY expires_at LIMIT $2"),
      params: [now, DEFAULT_PURGE_BATCH],
      write: true,
    },
    ...purge_targets
      .filter((t) => t.table !== "tokens" && t.table !== "sessions")
      .map((t) => ({ name: `purge batch: ${t.table}`, query: purge_batch(t.table), params: [now, DEFAULT_PURGE_BATCH], write: true, brief: true })),
  ];
  const plans: Plan[] = [];
  try {
    for (const c of cases) {
      if (c.write) await sql.unsafe("BEGIN");
      const rows = (await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${c.query}`, c.params)) as { "QUERY PLAN": string }[];
      if (c.write) await sql.unsafe("ROLLBACK");
      const plan = rows.map((r) => r["QUERY PLAN"]);
      const seq_scan_on = BIG.filter((t) => plan.some((line) => line.includes(`Seq Scan on ${t}`)));
      plans.push({ name: c.name, query: c.query, plan, seq_scan_on, brief: c.brief === true });
    }
  } finally {
    await sql.close();
  }
  return plans;
}

export function plans_markdown(plans: Plan[]): string {
  const out: string[] = [];
  // The other purge targets (tables the seed leaves small): the scan each batch's SELECT uses.
  const brief = plans.filter((p) => p.brief);
  if (brief.length) {
    const scans = (p: Plan) =>
      [
        ...new Set(
          p.plan
            .map((l) => /(Seq Scan|Index Only Scan|Index Scan|Bitmap Index Scan) (?:using (\S+) )?on (\S+)/.exec(l))
            .filter((m) => m !== null)
            .map((m) => `${m![1]}${m![2] ? ` using ${m![2]}` : ""} on ${m![3]}`),
        ),
      ].join(", ");
    out.push("Other purge batches (small tables here; the planner may prefer a sequential scan on a table of a few pages):", "");
    for (const p of brief) out.push(`- ${p.name.replace("purge batch: ", "")}: ${scans(p)}; ${p.plan.find((l) => l.startsWith("Execution Time"))}`);
    out.push("");
  }
  for (const p of plans.filter((p) => !p.brief)) {
    out.push(`**${p.name}**${p.seq_scan_on.length ? ` — SEQUENTIAL SCAN on ${p.seq_scan_on.join(", ")}` : ""}: \`${p.query.replace(/\s+/g, " ")}\``, "", "```");
    // Trimmed: the plan nodes, their buffers, the totals; not the planning buffers.
    out.push(...p.plan.filter((line, i) => line !== "Planning:" && !(p.plan[i - 1] === "Planning:" && /^\s+Buffers:/.test(line))));
    out.push("```", "");
  }
  return out.join("\n");
}
