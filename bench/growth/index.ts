/**
 * Issue 21: do the hot paths stay flat as the data grows? One command runs everything:
 *
 *     node_modules/.bin/bun run bench/growth/index.ts [--db NAME] [--keep] [--requests 5000] [--signins 200]
 *     node_modules/.bin/bun run bench/growth/index.ts --sqlite [--scale 1]     # the same on SQLite files (no EXPLAIN)
 *
 * 1. Two PostgreSQL databases of our own: an EMPTY one (the schema, the clients, 1,000 users,
 *    their sessions and grants: what the driver needs, no tokens) and a SEEDED one (seed.ts: 1M
 *    users, 10M tokens, 1M sessions, ~10% expired). `--db NAME` reuses one kept by
 *    `seed.ts --keep` (its purge figures need a fresh seed: the purge phase deletes the expired rows).
 * 2. For each, a fresh `bun run main.ts serve` with the same settings, the same driver and the same
 *    number of requests: password sign-in, /authorize with a session cookie → code → /token,
 *    /introspect and /userinfo of access tokens (on the seeded database, tokens of the big table).
 * 3. EXPLAIN (ANALYZE, BUFFERS) of the hot queries on the seeded database (explain.ts).
 * 4. The purge as the server runs it (app/purge.ts, every IDP_PURGE_INTERVAL_SECONDS): a server
 *    started with a short interval while signed-in flows and introspections run; latency before
 *    and during the purge, its duration (first batch seen in pg_stat_activity → its log line) and
 *    batch count (the `batches` of that log line).
 * 5. Server RSS (VmRSS, VmHWM) with 10,000 distinct signed-in browsers driven through /authorize
 *    and /token in rotation.
 *
 * Prints a Markdown section for bench/RESULTS.md on stdout, progress on stderr. Drops its
 * databases at the end unless --keep.
 */
import { SQL } from "bun";
import { machine_line } from "../http/machine.ts";
import { percentile, table } from "../load/stats.ts";
import { introspect, password_flow, Recorder, run_pool, session_flow, userinfo, type Hit } from "./driver.ts";
import { explain_hot_queries, plans_markdown, type Plan } from "./explain.ts";
import { create_database, drop_database, new_db_name, read_meta, scaled, seed_postgres, sizes_table, type Meta } from "./seed.ts";
import { load_average, memory_mib, start_server } from "./server.ts";
import { drop_sqlite, new_sqlite_dir, seed_sqlite } from "./seed_sqlite.ts";
import { expired, is_refresh, session_cookie, session_expires_at, token_expires_at, token_value, username } from "./shape.ts";
import { DEFAULT_PURGE_BATCH } from "../../src/store/default_limits.ts";

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const REQUESTS = Number(arg("--requests", "5000"));
const SIGNINS = Number(arg("--signins", "200"));
const CONCURRENCY = Number(arg("--concurrency", "8"));
const RSS_SESSIONS = Number(arg("--rss-sessions", "10000"));
const PURGE_INTERVAL = Number(arg("--purge-interval", "20"));
const KEEP = process.argv.includes("--keep");
const log = (msg: string) => console.error(`[growth ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const rand = (n: number) => 1 + Math.floor(Math.random() * n);

/** A random live row number in 1..n that `ok` accepts. */
function pick(n: number, ok: (i: number) => boolean): number {
  for (;;) {
    const i = rand(n);
    if (ok(i)) return i;
  }
}
// Sessions and tokens still live for the next 10 minutes (time passes since the seed).
const live_for_a_while = (expires_at: number) => expires_at > Math.floor(Date.now() / 1000) + 600;
const live_session_number = (m: Meta) => pick(m.counts.sessions, (i) => !expired(i) && live_for_a_while(session_expires_at(i, m.now)));
const live_session = (m: Meta) => session_cookie(live_session_number(m));
// Access tokens of the bench client (i % 10 = 9 belong to other clients), not expired.
const live_token = (m: Meta) =>
  token_value(
    pick(m.counts.tokens, (i) => !expired(i) && !is_refresh(i) && i % 10 !== 9 && live_for_a_while(token_expires_at(i, m.now))),
    m.now,
  );

type Measured = { hits: Hit[]; failures: number; last_failure: string; rss_after: number };

async function measure(meta: Meta): Promise<Measured> {
  const server = await start_server(meta.url);
  const base = server.url;
  const fresh: string[] = [];
  try {
    const warm = new Recorder();
    await run_pool(warm, 200, CONCURRENCY, async () => fresh.push(await session_flow(warm, base, meta.client, live_session(meta))));
    const rec = new Recorder();
    log(`${meta.db}: ${SIGNINS} password sign-ins`);
    await run_pool(rec, SIGNINS, 2, () => password_flow(rec, base, meta.client, username(rand(meta.counts.users))));
    log(`${meta.db}: ${REQUESTS} signed-in flows`);
    await run_pool(rec, REQUESTS, CONCURRENCY, async () => fresh.push(await session_flow(rec, base, meta.client, live_session(meta))));
    // Seeded: random rows of the big table (far beyond shared_buffers); empty: the flows' tokens.
    const token = () => (meta.counts.tokens > 0 ? live_token(meta) : fresh[rand(fresh.length) - 1]!);
    log(`${meta.db}: ${REQUESTS} introspections, ${REQUESTS} userinfo`);
    await run_pool(rec, REQUESTS, CONCURRENCY, () => introspect(rec, base, meta.client, token()));
    await run_pool(rec, REQUESTS, CONCURRENCY, () => userinfo(rec, base, token()));
    if (warm.failures > 0) log(`warm-up failures: ${warm.failures} ${warm.last_failure}`);
    return { hits: rec.hits, failures: rec.failures + warm.failures, last_failure: rec.last_failure || warm.last_failure, rss_after: memory_mib(server.proc.pid).rss };
  } finally {
    await server.stop();
  }
}

type PurgeRun = {
  counts: Record<string, number>;
  seconds: number;
  batches: number;
  seen_in_activity: boolean;
  before: Hit[];
  during: Hit[];
  failures: number;
  last_failure: string;
};

/** A server with a short purge interval; load runs from its start until its first purge is done. */
async function purge_phase(meta: Meta): Promise<PurgeRun> {
  const server = await start_server(meta.url, PURGE_INTERVAL);
  const t_listen = performance.now();
  // PostgreSQL: the purge's batches are visible in pg_stat_activity. SQLite: measured from when it was due.
  const watch = meta.kind === "sqlite" ? null : new SQL(meta.url, { max: 1 });
  const rec = new Recorder();
  let started: number | null = null;
  let finished: number | null = null;
  let line: Record<string, unknown> | undefined;
  const fresh: string[] = [];
  const token = () => (meta.counts.tokens > 0 ? live_token(meta) : fresh[rand(fresh.length) - 1]);
  const deadline = t_listen + (PURGE_INTERVAL + 900) * 1000;
  const poll = (async () => {
    while (finished === null && performance.now() < deadline) {
      const active = watch
        ? ((await watch`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${meta.db} AND state = 'active' AND query LIKE 'DELETE FROM % WHERE ctid = ANY(ARRAY(%'`) as {
            n: number;
          }[])
        : [{ n: 0 }];
      if (started === null && active[0]!.n > 0) started = performance.now();
      line = server.logs().find((l) => l.msg === "purged expired rows");
      if (line) finished = performance.now();
      // Nothing to purge prints no line: give up a minute after the purge was due.
      else if (performance.now() > t_listen + (PURGE_INTERVAL + (watch ? 60 : 900)) * 1000 && started === null) break;
      await Bun.sleep(50);
    }
  })();
  const load = run_pool(
    rec,
    0,
    4,
    async () => {
      const access = await session_flow(rec, server.url, meta.client, live_session(meta));
      fresh.push(access);
      await introspect(rec, server.url, meta.client, token() ?? access);
    },
    () => finished !== null && performance.now() > finished + 3000,
  );
  await poll;
  if (finished === null) finished = performance.now();
  await load;
  await watch?.close();
  await server.stop();
  const start = started ?? t_listen + PURGE_INTERVAL * 1000;
  const counts = Object.fromEntries(Object.entries(line ?? {}).filter(([k, v]) => typeof v === "number" && k !== "batches")) as Record<string, number>;
  // The purge's log line counts its DELETE statements (app/purge.ts).
  const batches = Number(line?.batches ?? NaN);
  return {
    counts,
    seconds: (finished - start) / 1000,
    batches,
    seen_in_activity: started !== null,
    // Before: answered before the purge began. During: in flight at some moment of it.
    before: rec.hits.filter((h) => h.t0 >= t_listen + 3000 && h.t0 + h.ms < start),
    during: rec.hits.filter((h) => h.t0 <= finished! && h.t0 + h.ms >= start),
    failures: rec.failures,
    last_failure: rec.last_failure,
  };
}

type RssRun = {
  before: { rss: number; hwm: number };
  peak_rss: number;
  after_pass: { rss: number; hwm: number }[];
  after_idle: { rss: number; hwm: number };
  pass_seconds: number[];
  failures: number;
  p50: number;
  p99: number;
};

async function rss_phase(meta: Meta): Promise<RssRun> {
  const server = await start_server(meta.url);
  const pid = server.proc.pid;
  try {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(RSS_SESSIONS, meta.counts.sessions * 0.8)) chosen.add(live_session_number(meta));
    const cookies = [...chosen].map(session_cookie);
    const warm = new Recorder();
    await run_pool(warm, 100, 8, () => session_flow(warm, server.url, meta.client, cookies[0]!));
    await Bun.sleep(2000);
    const before = memory_mib(pid);
    let peak = before.rss;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, memory_mib(pid).rss);
        await Bun.sleep(200);
      }
    })();
    const rec = new Recorder();
    const after_pass: { rss: number; hwm: number }[] = [];
    const pass_seconds: number[] = [];
    // Two passes over all the browsers, 32 at a time: each /authorize reads and touches its session.
    for (let pass = 0; pass < 2; pass++) {
      const t0 = performance.now();
      await run_pool(rec, cookies.length, 32, (n) => session_flow(rec, server.url, meta.client, cookies[n]!));
      pass_seconds.push((performance.now() - t0) / 1000);
      after_pass.push(memory_mib(pid));
      log(`rss pass ${pass + 1}: ${pass_seconds.at(-1)!.toFixed(1)} s, ${after_pass.at(-1)!.rss.toFixed(0)} MiB`);
    }
    sampling = false;
    await sampler;
    await Bun.sleep(10_000);
    const flows = rec.hits.filter((h) => h.step === "authorize (signed in)").map((h) => h.ms);
    return {
      before,
      peak_rss: peak,
      after_pass,
      after_idle: memory_mib(pid),
      pass_seconds,
      failures: rec.failures + warm.failures,
      p50: percentile(flows, 50),
      p99: percentile(flows, 99),
    };
  } finally {
    await server.stop();
  }
}

const f = (v: number) => (Number.isNaN(v) ? "–" : v < 10 ? v.toFixed(2) : v.toFixed(1));
const steps = (hits: Hit[]) => [...new Set(hits.map((h) => h.step))];
const times = (hits: Hit[], step: string) => hits.filter((h) => h.step === step).map((h) => h.ms);

function latency_table(empty: Hit[], seeded: Hit[]): string {
  const rows = steps(seeded).map((step) => {
    const e = times(empty, step);
    const s = times(seeded, step);
    const [e50, e99, s50, s99] = [percentile(e, 50), percentile(e, 99), percentile(s, 50), percentile(s, 99)];
    return [step, `${e.length} / ${s.length}`, f(e50), f(e99), f(s50), f(s99), (s50 / e50).toFixed(2), (s99 / e99).toFixed(2)];
  });
  return table(["step", "requests (empty / seeded)", "empty p50 ms", "empty p99 ms", "seeded p50 ms", "seeded p99 ms", "ratio p50", "ratio p99"], rows);
}

function purge_table(runs: [string, PurgeRun][]): string {
  const rows: string[][] = [];
  for (const [name, run] of runs) {
    for (const step of steps(run.before)) {
      const b = times(run.before, step);
      const d = times(run.during, step);
      rows.push([name, step, String(b.length), f(percentile(b, 50)), f(percentile(b, 99)), String(d.length), f(percentile(d, 50)), f(percentile(d, 99)), f(Math.max(0, ...d))]);
    }
  }
  return table(["database", "step", "n before", "p50 before", "p99 before", "n during purge", "p50 during", "p99 during", "max during"], rows);
}

async function main() {
  const t_start = new Date();
  const load_start = load_average();
  log(`load average ${load_start}`);
  const names: string[] = [];
  const sqlite = process.argv.includes("--sqlite");
  const drop = (name: string) => (sqlite ? Promise.resolve(drop_sqlite(name)) : drop_database(name));
  let seeded: Meta;
  let seed_line: string;
  const reuse = process.argv.includes("--db") ? arg("--db", "") : null;
  const empty_counts = { users: 1000, sessions: 1000, tokens: 0, codes: 0, interactions: 0 };
  try {
    if (reuse && !sqlite) {
      seeded = read_meta(reuse);
      names.push(reuse);
      seed_line = `reused ${reuse} (seeded in ${seeded.seconds.toFixed(0)} s by seed.ts)`;
    } else if (sqlite) {
      const dir = new_sqlite_dir();
      names.push(dir);
      log(`seeding ${dir} (load average ${load_average()})`);
      seeded = await seed_sqlite(dir, scaled(Number(arg("--scale", "1"))));
      seed_line = `seeded in ${seeded.seconds.toFixed(0)} s`;
    } else {
      const name = new_db_name("seeded");
      await create_database(name);
      names.push(name);
      log(`seeding ${name} (load average ${load_average()})`);
      seeded = await seed_postgres(name, scaled(Number(arg("--scale", "1"))));
      seed_line = `seeded in ${seeded.seconds.toFixed(0)} s`;
    }
    let empty: Meta;
    if (sqlite) {
      const dir = new_sqlite_dir();
      names.push(dir);
      empty = await seed_sqlite(dir, empty_counts);
    } else {
      const empty_name = new_db_name("empty");
      await create_database(empty_name);
      names.push(empty_name);
      empty = await seed_postgres(empty_name, empty_counts);
    }
    const load_measure = load_average();
    const m_empty = await measure(empty);
    const m_seeded = await measure(seeded);
    log("EXPLAIN");
    // SQLite's plans are checked by tests/store/sqlite_plans.test.ts.
    const plans: Plan[] = sqlite ? [] : await explain_hot_queries(seeded);
    log("purge phases");
    const load_purge = load_average();
    const p_empty = await purge_phase(empty);
    const p_seeded = await purge_phase(seeded);
    log("RSS phase");
    const load_rss = load_average();
    const rss = await rss_phase(seeded);
    const load_end = load_average();

    const out: string[] = [];
    out.push(`### Run of ${t_start.toISOString().slice(0, 16)} UTC`, "");
    out.push(
      `Machine: ${machine_line()}. Load average (1/5/15 min) at start ${load_start}, during the latency phase ${load_measure}, the purge phase ${load_purge}, the RSS phase ${load_rss}, at the end ${load_end}; the machine is shared with other work, so compare within this run only.`,
      "",
    );
    out.push(`Command: \`node_modules/.bin/bun run bench/growth/index.ts${process.argv.slice(2).length ? " " + process.argv.slice(2).join(" ") : ""}\``, "");
    out.push(
      `${sqlite ? "SQLite" : "PostgreSQL"}. Seeded database: ${JSON.stringify(seeded.counts)}, ${seed_line}. Empty database: the schema, 4 clients, 1,000 users with their sessions and grants, no tokens.`,
      "",
    );
    out.push(sizes_table(seeded.sizes), "");
    out.push(`#### Latency, empty vs seeded (${SIGNINS} sign-ins 2 at a time; ${REQUESTS} of each other request, ${CONCURRENCY} at a time)`, "");
    out.push(latency_table(m_empty.hits, m_seeded.hits), "");
    out.push(
      `Failed requests: empty ${m_empty.failures}, seeded ${m_seeded.failures}${m_seeded.last_failure ? ` (last: ${m_seeded.last_failure})` : ""}. Server RSS after the phase: empty ${m_empty.rss_after.toFixed(0)} MiB, seeded ${m_seeded.rss_after.toFixed(0)} MiB.`,
      "",
    );
    out.push(`#### Purge (server loop, IDP_PURGE_INTERVAL_SECONDS=${PURGE_INTERVAL}, batches of at most ${DEFAULT_PURGE_BATCH} rows)`, "");
    for (const [name, run] of [
      ["empty", p_empty],
      ["seeded", p_seeded],
    ] as const) {
      out.push(
        `- ${name}: ${run.seconds.toFixed(1)} s${run.seen_in_activity ? "" : " (no batch seen in pg_stat_activity: measured from when it was due)"}, ${run.batches} DELETE batches, rows ${JSON.stringify(run.counts)}; failed requests during the phase: ${run.failures}${run.last_failure ? ` (${run.last_failure})` : ""}`,
      );
    }
    out.push("", "Latency with 4 signed-in browsers looping /authorize → /token → /introspect, before the purge started and while it ran:", "");
    out.push(
      purge_table([
        ["empty", p_empty],
        ["seeded", p_seeded],
      ]),
      "",
    );
    if (!sqlite) out.push("#### Query plans on the seeded database", "", plans_markdown(plans));
    out.push(`#### RSS with ${RSS_SESSIONS.toLocaleString("en")} signed-in browsers`, "");
    out.push(
      table(
        ["moment", "VmRSS MiB", "VmHWM MiB"],
        [
          ["after start and 100 warm-up flows", f(rss.before.rss), f(rss.before.hwm)],
          ...rss.after_pass.map((m, i) => [`after pass ${i + 1} (${RSS_SESSIONS} browsers, ${rss.pass_seconds[i]!.toFixed(1)} s)`, f(m.rss), f(m.hwm)]),
          ["peak VmRSS sampled every 200 ms", f(rss.peak_rss), "–"],
          ["after 10 s idle", f(rss.after_idle.rss), f(rss.after_idle.hwm)],
        ],
      ),
      "",
    );
    out.push(`/authorize (signed in) during the passes: p50 ${f(rss.p50)} ms, p99 ${f(rss.p99)} ms; failed flows ${rss.failures}.`, "");
    console.log(out.join("\n"));
  } finally {
    if (!KEEP) for (const name of names) await drop(name).catch((error) => log(`drop ${name}: ${error}`));
    else log(`kept ${names.join(", ")}`);
  }
}

await main();
