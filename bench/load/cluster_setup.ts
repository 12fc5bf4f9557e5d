/**
 * What the cluster scenarios share: three `main.ts serve` instances on one fresh PostgreSQL
 * database, behind nginx run with the site of deploy/nginx-cluster.conf (nginx.ts); the issuer
 * is nginx's URL, so every instance signs for the same issuer and any instance can serve any
 * step. Then the integrity checks after a run, all through nginx: every access token at
 * /userinfo, every ID Token against the JWKS, each code left unredeemed presented twice at once,
 * a sample of used codes presented again (last: a reused code revokes its tokens), and the
 * driver's ledger against the database.
 */
import type { ServerProcess } from "../../tests/ops/process.ts";
import { free_port } from "../../tests/helpers/provider.ts";
import { try_codes, type CodeOutcomes } from "./crash.ts";
import { new_ledger, type Client, type DriverOptions, type Hit, type Ledger, type User } from "./driver.ts";
import { db_report, match_ledger, type DbReport, type LedgerMatch } from "./inspect.ts";
import { start_nginx, type Nginx } from "./nginx.ts";
import { RelyingParty } from "./rp.ts";
import { warm_up } from "./sustained.ts";
import { verdict } from "./stats.ts";
import { make_db, seed, server_env, start, type Db } from "./target.ts";

export const INSTANCES = 3;

export type Cluster = {
  db: Db;
  env: Record<string, string>;
  /** The current process of each instance (a restarted one replaces its slot). */
  servers: ServerProcess[];
  /** Every process ever started, for their logs. */
  all_servers: ServerProcess[];
  nginx: Nginx;
  issuer: string;
  users: User[];
  client: Client;
  stop(): Promise<void>;
};

/**
 * `through_proxy`: the instances reach PostgreSQL through the TCP proxy of make_db (a fault we
 * can cause without touching the shared server); otherwise directly.
 */
export async function start_cluster(users_count: number, through_proxy = false): Promise<Cluster> {
  const db = await make_db("postgres");
  const servers: ServerProcess[] = [];
  let nginx: Nginx | undefined;
  try {
    const ports = await Promise.all(Array.from({ length: INSTANCES }, () => free_port()));
    const nginx_port = await free_port();
    const issuer = `http://127.0.0.1:${nginx_port}`;
    const env = server_env(db, { DATABASE_URL: through_proxy ? db.url : db.direct, IDP_ISSUER: issuer, IDP_TRUST_PROXY: "true" });
    const { users, client } = await seed(env, users_count);
    // The first instance alone (it creates the signing keys), then the others together.
    servers.push(await start(env, ports[0]));
    servers.push(...(await Promise.all(ports.slice(1).map((port) => start(env, port)))));
    nginx = await start_nginx(ports, nginx_port);
    const cluster: Cluster = {
      db,
      env,
      servers,
      all_servers: [...servers],
      nginx,
      issuer,
      users,
      client,
      async stop() {
        await nginx!.stop();
        for (const s of cluster.servers) await s.stop();
        await db.drop();
      },
    };
    return cluster;
  } catch (error) {
    await nginx?.stop();
    for (const s of servers) await s.stop();
    await db.drop();
    throw error;
  }
}

/** Runs `fn` over `items`, `width` at a time. */
async function each<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/** The driver's options through nginx, after every user signed in once (the warm-up's ledger). */
export async function warm_cluster(c: Cluster, timeout_ms: number, backoff_ms: number): Promise<{ options: Omit<DriverOptions, "ledger">; warm: Ledger }> {
  const options = { bases: [c.nginx.url], client: c.client, users: c.users, timeout_ms, backoff_ms };
  const warm = new_ledger();
  await warm_up({ ...options, ledger: warm }, c.users.length);
  return { options, warm };
}

/** The warm-up's and the run's codes and tokens together, for the integrity checks. */
export const merged = (warm: Ledger, ledger: Ledger): Ledger => ({
  ...new_ledger(),
  issued: new Map([...warm.issued, ...ledger.issued]),
  redeemed: new Map([...warm.redeemed, ...ledger.redeemed]),
});

export type Integrity = {
  tokens: number;
  userinfo: Record<string, number>;
  id_tokens: { verified: number; failed: number; errors: string[] };
  unredeemed: CodeOutcomes & { presented: number };
  used_again: CodeOutcomes & { presented: number };
  stored: DbReport;
  matched: LedgerMatch;
  /** The checks, by name. */
  checks: [string, boolean][];
};

const USED_SAMPLE = 200;

export async function integrity(c: Cluster, all: Ledger): Promise<Integrity> {
  const base = c.nginx.url;
  const redeemed = [...all.redeemed.values()];
  const userinfo: Record<string, number> = {};
  await each(redeemed, 16, async (r) => {
    const response = await fetch(`${base}/userinfo`, { headers: { authorization: `Bearer ${r.access_token}` }, signal: AbortSignal.timeout(20_000) }).catch(() => null);
    const key = response === null ? "no answer" : String(response.status);
    await response?.arrayBuffer();
    userinfo[key] = (userinfo[key] ?? 0) + 1;
  });
  const rp = new RelyingParty([base], c.issuer, c.client.client_id);
  await rp.refresh();
  for (const r of redeemed) await rp.verify(r.id_token, r.nonce).catch(() => {});
  const waiting = [...all.issued.values()].filter((i) => !all.redeemed.has(i.code));
  const stored_before = await db_report(c.db);
  const matched = await match_ledger(c.db, all);
  const unredeemed = await try_codes(base, c.client, waiting, true, new_ledger());
  // A used code presented again is refused and revokes the tokens issued from it (RFC 6749
  // §4.1.2), so this runs after the token checks, on a sample.
  const sample = [...redeemed]
    .sort(() => Math.random() - 0.5)
    .slice(0, USED_SAMPLE)
    .map((r) => ({ code: r.code, verifier: all.issued.get(r.code)!.verifier }));
  const used_again = await try_codes(base, c.client, sample, false, new_ledger());
  const stored = await db_report(c.db);
  const checks: [string, boolean][] = [
    ["every access token answers /userinfo 200", Object.keys(userinfo).every((k) => k === "200")],
    ["every ID Token verifies against the JWKS via nginx", rp.stats.failures.length === 0 && rp.stats.verified === redeemed.length],
    ["codes left unredeemed: at most one success when presented twice at once", unredeemed.twice === 0 && unredeemed.other.length === 0],
    ["used codes presented again: all refused", used_again.once === 0 && used_again.twice === 0 && used_again.other.length === 0],
    ["database: no code with two access tokens", stored.bad_rows.code_with_two_access_tokens === 0],
    ["every code and token the driver saw is stored, redeemed codes consumed", matched.issued_missing === 0 && matched.tokens_missing === 0 && matched.redeemed_not_consumed === 0],
    ["no half-written row", Object.entries(stored_before.bad_rows).every(([, v]) => v === 0)],
  ];
  return {
    tokens: redeemed.length,
    userinfo,
    id_tokens: { verified: rp.stats.verified, failed: rp.stats.failures.length, errors: rp.stats.failures.slice(0, 3).map((f) => f.error) },
    unredeemed: { ...unredeemed, presented: waiting.length },
    used_again: { ...used_again, presented: sample.length },
    stored: stored_before,
    matched,
    checks,
  };
}

export function count<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

/** nginx's error and warning lines, by kind ("no live upstreams", "connect() failed (N: …)"). */
export function nginx_error_kinds(log: string): Record<string, number> {
  const lines = log.split("\n").filter((l) => /\[(error|warn)\]/.test(l));
  return count(lines, (l) => (/\] \d+#\d+: \*\d+ (.*?)(,| while)/.exec(l)?.[1] ?? l.slice(20, 80)).replace(/\d+/g, "N"));
}

export const show = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${v} × ${k}`)
    .join(", ") || "–";

/** The Markdown lines of an integrity result. */
/** The end of a cluster report: the integrity checks, then the verdict over all checks. */
export function report_end(i: Integrity, checks: [string, boolean][]): string[] {
  return ["Integrity after the run (all through nginx):", "", ...integrity_lines(i), "", verdict(checks), ""];
}

export function integrity_lines(i: Integrity): string[] {
  const codes = (o: CodeOutcomes & { presented: number }) =>
    `${o.presented} presented: ${o.once} accepted once, ${o.refused} refused, ${o.twice} accepted twice${o.other.length ? `, other ${o.other.slice(0, 5).join(", ")}` : ""}`;
  return [
    `- Access tokens at /userinfo via nginx after the run (${i.tokens}): ${show(i.userinfo)}.`,
    `- ID Tokens against the JWKS fetched via nginx: ${i.id_tokens.verified} verified, ${i.id_tokens.failed} failed${i.id_tokens.errors.length ? ` (${i.id_tokens.errors.join("; ")})` : ""}.`,
    `- Codes issued but never redeemed by the driver (its flow failed after the callback), each presented twice at once: ${codes(i.unredeemed)}.`,
    `- Used codes presented again (a random sample): ${codes(i.used_again)}.`,
    `- Database: ${i.stored.codes} codes, ${i.stored.codes_consumed} consumed, ${i.stored.access_tokens} access tokens, ${i.stored.login_events} sign-in events; codes with two access tokens: ${i.stored.bad_rows.code_with_two_access_tokens}; half-written rows ${JSON.stringify(i.stored.bad_rows)}; codes consumed without a token (fail-closed): ${i.stored.consumed_without_token}.`,
    `- Driver vs database: ${JSON.stringify(i.matched)}; access tokens stored that the driver never received (a /token answer lost with its instance; the code then reads as used): ${i.stored.access_tokens - i.tokens}.`,
  ];
}

/** Statuses the driver saw, per step: `200`, `302`, …, `no answer` (connection error or timeout). */
export function statuses_by_step(hits: Hit[]): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const h of hits) {
    const row = out.get(h.step) ?? {};
    const key = h.status === 0 ? (h.error === "timeout" ? "timeout" : "no answer") : String(h.status);
    row[key] = (row[key] ?? 0) + 1;
    out.set(h.step, row);
  }
  return out;
}

/** Rows for a table of statuses per step: step, requests, 2xx/3xx, 4xx, 5xx, no answer. */
export function status_rows(hits: Hit[]): string[][] {
  return [...statuses_by_step(hits)].map(([step, counts]) => {
    const sum = (test: (k: string) => boolean) =>
      Object.entries(counts)
        .filter(([k]) => test(k))
        .reduce((n, [, v]) => n + v, 0);
    const fives = Object.entries(counts).filter(([k]) => k.startsWith("5"));
    return [
      step,
      String(sum(() => true)),
      show(Object.fromEntries(Object.entries(counts).filter(([k]) => /^[23]/.test(k)))),
      String(sum((k) => k.startsWith("4"))),
      fives.length ? fives.map(([k, v]) => `${v} × ${k}`).join(", ") : "0",
      String(sum((k) => !/^\d/.test(k))),
    ];
  });
}
