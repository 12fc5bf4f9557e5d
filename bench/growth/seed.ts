/**
 * Fills a fresh PostgreSQL database with issue 21's volume: 1M users, 10M access and refresh
 * tokens, 1M sessions (each with its session_clients row) and 1M consent grants, plus codes and
 * interactions in proportion; ~10% of every expiring kind is already expired, so the purge has
 * ~1M tokens and ~100k sessions to remove. The schema is the provider's own (`idp migrate`), the
 * clients are added with `idp clients add`, then everything else is INSERT … SELECT over
 * generate_series: row-by-row through the store would take hours on 2 cores.
 *
 * For speed the secondary indexes of the big tables (and the tokens primary key, which nothing
 * references) are dropped before the inserts and created again after with the exact definitions
 * read from the catalog, and foreign-key triggers are off while inserting
 * (session_replication_role = replica): the generated rows are consistent by construction. The
 * schema is the same afterwards (checked: the index definitions are compared).
 *
 *     node_modules/.bin/bun run bench/growth/seed.ts [--db NAME] [--scale 1] [--keep]
 *
 * Without --keep the database is dropped at the end (a dry run of the timing). The bench
 * (index.ts) calls `seed_postgres` itself. Meta (client credentials, `now`, counts) goes to
 * /tmp/idp-growth/<db>.json so `index.ts --db NAME` can reuse a kept database.
 */
import { SQL } from "bun";
import { mkdirSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cli_json } from "../../tests/ops/process.ts";
import { hash_password } from "../../src/platform/passwords.ts";
import {
  ACCESS_TTL,
  b64u,
  CALLBACK,
  FULL,
  PASSWORD,
  REFRESH_TTL,
  SESSION_TTL,
  sql_expired,
  sql_is_refresh,
  sql_session_cookie,
  sql_token_expires_at,
  sql_user_id,
  sql_username,
  type Counts,
} from "./shape.ts";

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const META_DIR = "/tmp/idp-growth";

export type Client = { client_id: string; client_secret: string };
/** `db`: the PostgreSQL database's name, or the SQLite file's folder (`kind` "sqlite"). */
export type Meta = { db: string; url: string; now: number; counts: Counts; client: Client; others: string[]; seconds: number; sizes: TableSize[]; kind?: "sqlite" };
export type TableSize = { table: string; rows: number; total_mib: number; heap_mib: number; index_mib: number };

export function db_url(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function create_database(name: string): Promise<void> {
  if (!/^idp_growth_[a-z0-9_]+$/.test(name)) throw new Error(`database name must match idp_growth_[a-z0-9_]+ (ours only): ${name}`);
  const admin = new SQL(ADMIN_URL, { max: 1 });
  try {
    // CREATE fails if it exists: we never write into a database we did not create.
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.close();
  }
}

export async function drop_database(name: string): Promise<void> {
  if (!/^idp_growth_[a-z0-9_]+$/.test(name)) throw new Error(`refusing to drop ${name}`);
  const admin = new SQL(ADMIN_URL, { max: 1 });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.close();
  }
}

export const new_db_name = (tag: string) => `idp_growth_${tag}_${crypto.randomUUID().replaceAll("-", "").slice(0, 10)}`;

const log = (msg: string) => console.error(`[seed ${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** Runs `body` in chunks of `step` over 1..n, `parallel` statements at a time (one connection each). */
async function chunked(sql: SQL, n: number, step: number, parallel: number, label: string, body: (lo: number, hi: number) => string): Promise<void> {
  const ranges: [number, number][] = [];
  for (let lo = 1; lo <= n; lo += step) ranges.push([lo, Math.min(n, lo + step - 1)]);
  let done = 0;
  const t0 = performance.now();
  const next = async () => {
    for (let r = ranges.shift(); r; r = ranges.shift()) {
      await sql.begin(async (tx) => {
        await tx.unsafe("SET LOCAL session_replication_role = replica; SET LOCAL synchronous_commit = off");
        await tx.unsafe(body(r[0], r[1]));
      });
      done += r[1] - r[0] + 1;
      log(`${label}: ${done}/${n} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, next));
}

const BIG_TABLES = ["users", "sessions", "session_clients", "grants", "tokens", "codes", "interactions"];

async function index_definitions(sql: SQL): Promise<{ name: string; def: string }[]> {
  return (await sql.unsafe(`SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = 'public' AND tablename = ANY($1::text[]) ORDER BY tablename, indexname`, [
    BIG_TABLES,
  ])) as { name: string; def: string }[];
}

/**
 * What both seeds start with: the store's own migrations (`idp migrate`), the clients the way an
 * operator adds them (`idp clients add`: the bench client and 3 others), one argon2id hash at the
 * provider's defaults (m=19456 KiB, t=2) reused by every user, and the seed's `now`.
 */
export async function prepare_database(url: string): Promise<{ client: Client; others: string[]; password_hash: string; now: number }> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", DATABASE_URL: url };
  const migrated = Bun.spawnSync([join(import.meta.dir, "../../node_modules/.bin/bun"), "run", join(import.meta.dir, "../../main.ts"), "migrate"], {
    env,
    stderr: "pipe",
    stdout: "pipe",
  });
  if (migrated.exitCode !== 0) throw new Error(`idp migrate failed: ${migrated.stderr.toString()}`);
  const client = await cli_json<Client>(["clients", "add", "--name", "Growth RP", "--redirect-uri", CALLBACK], env);
  const others: string[] = [];
  for (const n of [1, 2, 3]) others.push((await cli_json<Client>(["clients", "add", "--name", `Other RP ${n}`, "--redirect-uri", `https://rp${n}.example.com/cb`], env)).client_id);
  const password_hash = await hash_password(PASSWORD, { memory_kib: 19456, time_cost: 2 });
  return { client, others, password_hash, now: Math.floor(Date.now() / 1000) };
}

export async function seed_postgres(name: string, counts: Counts, options: { parallel?: number } = {}): Promise<Meta> {
  const parallel = options.parallel ?? 2;
  const t0 = performance.now();
  const url = db_url(name);
  const { client, others, password_hash, now } = await prepare_database(url);
  const sql = new SQL(url, { max: parallel + 1, idleTimeout: 0 });
  try {
    await sql.unsafe("SET maintenance_work_mem = '256MB'");
    const before = await index_definitions(sql);
    const pk = (await sql.unsafe(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'tokens_pkey'`)) as { def: string }[];
    // Secondary indexes (not those behind a constraint) and the tokens key: rebuilt after the load.
    const constraint_indexes = new Set(((await sql.unsafe(`SELECT conname FROM pg_constraint WHERE contype IN ('p', 'u')`)) as { conname: string }[]).map((r) => r.conname));
    const secondary = before.filter((i) => !constraint_indexes.has(i.name));
    for (const i of secondary) await sql.unsafe(`DROP INDEX "${i.name}"`);
    await sql.unsafe(`ALTER TABLE tokens DROP CONSTRAINT tokens_pkey`);
    log(`dropped ${secondary.length} indexes and tokens_pkey for the load`);

    const others_array = `ARRAY[${others.map((c) => `'${c}'`).join(",")}]`;
    const client_of = (i: string) => `(CASE WHEN ${i} % 10 = 9 THEN (${others_array})[1 + (${i} / 10) % ${others.length}] ELSE '${client.client_id}' END)`;
    const session_exp = (i: string) =>
      `(CASE WHEN ${sql_expired(i)} THEN ${now} - 1 - ((${i} * 7919) % (7 * 86400)) ELSE ${now} + 120 + ((${i} * 7919) % (${SESSION_TTL} - 240)) END)`;

    await chunked(
      sql,
      counts.users,
      250_000,
      parallel,
      "users",
      (lo, hi) => `
      INSERT INTO users (id, username, username_key, password_hash, name, given_name, family_name, email, email_verified, phone_number_verified, created_at, updated_at, status)
      SELECT ${sql_user_id("i")}, ${sql_username("i")}, ${sql_username("i")}, '${password_hash}', 'Growth User ' || i, 'Growth', 'User ' || i,
             ${sql_username("i")} || '@example.com', true, false, ${now} - 86400 * 90 + i % 86400, ${now} - 86400 * 90 + i % 86400, 'active'
      FROM generate_series(${lo}::bigint, ${hi}::bigint) AS i`,
    );
    // Every user has consented to the bench client (what /authorize reads on a signed-in flow).
    await chunked(
      sql,
      counts.users,
      250_000,
      parallel,
      "grants",
      (lo, hi) => `
      INSERT INTO grants (user_id, client_id, scopes, claims, created_at, updated_at)
      SELECT ${sql_user_id("i")}, '${client.client_id}', '["openid","profile","email","offline_access"]'::jsonb, NULL, ${now} - 86400 * 30, ${now} - 86400 * 30
      FROM generate_series(${lo}::bigint, ${hi}::bigint) AS i`,
    );
    // Session i belongs to user ((i - 1) % users) + 1; its cookie is sql_session_cookie(i).
    const session_user = (i: string) => `((${i} - 1) % ${counts.users} + 1)`;
    await chunked(
      sql,
      counts.sessions,
      250_000,
      parallel,
      "sessions",
      (lo, hi) => `
      INSERT INTO sessions (id_hash, user_id, auth_time, amr, acr, created_at, expires_at, last_seen_at, user_agent, ip)
      SELECT ${b64u(sql_session_cookie("i"))}, ${sql_user_id(session_user("i"))}, e - ${SESSION_TTL}, '["pwd"]'::jsonb, NULL, e - ${SESSION_TTL}, e, e - ${SESSION_TTL},
             'Mozilla/5.0 (X11; Linux x86_64) growth-bench', '127.0.0.1'
      FROM (SELECT i, ${session_exp("i")} AS e FROM generate_series(${lo}::bigint, ${hi}::bigint) AS i) AS s;
      INSERT INTO session_clients (session_id_hash, client_id, created_at)
      SELECT ${b64u(sql_session_cookie("i"))}, '${client.client_id}', ${now} - 3600 FROM generate_series(${lo}::bigint, ${hi}::bigint) AS i`,
    );
    // Token i: user ((i - 1) % users) + 1, issued in that user's session when it has one.
    const token_user = (i: string) => `((${i} - 1) % ${counts.users} + 1)`;
    await chunked(
      sql,
      counts.tokens,
      500_000,
      parallel,
      "tokens",
      (lo, hi) => `
      INSERT INTO tokens (token_hash, kind, client_id, user_id, scope, grant_id, family_id, session_id_hash, auth_time, acr, amr, claims, nonce, created_at, expires_at, revoked_at, rotated_at, jkt, resources, act)
      SELECT p || ${b64u(`p || ${b64u(`'growth-token-' || i`)}`)},
             CASE WHEN r THEN 'refresh' ELSE 'access' END, ${client_of("i")}, ${sql_user_id("u")},
             CASE WHEN r THEN 'openid profile email offline_access' ELSE 'openid profile email' END,
             md5('growth-grant-' || (i / 2))::uuid::text, CASE WHEN r THEN md5('growth-family-' || i)::uuid::text END,
             CASE WHEN u <= ${counts.sessions} THEN ${b64u(sql_session_cookie("u"))} END,
             c - 5, NULL, '["pwd"]'::jsonb, NULL, NULL, c, e, NULL, NULL, NULL, NULL, NULL
      FROM (SELECT i, u, r, e, c, lpad(to_hex(c * 1000 + i % 1000), 12, '0') AS p
            FROM (SELECT i, ${token_user("i")} AS u, ${sql_is_refresh("i")} AS r, ${sql_token_expires_at("i", now)} AS e,
                         ${sql_token_expires_at("i", now)} - CASE WHEN ${sql_is_refresh("i")} THEN ${REFRESH_TTL} ELSE ${ACCESS_TTL} END AS c
                  FROM generate_series(${lo}::bigint, ${hi}::bigint) AS i) AS a) AS b`,
    );
    // Codes live 60 s and are consumed at once: most in the table are consumed, ~10% past expiry.
    await chunked(
      sql,
      counts.codes,
      100_000,
      1,
      "codes",
      (lo, hi) => `
      INSERT INTO codes (code_hash, client_id, user_id, session_id_hash, redirect_uri, scope, nonce, code_challenge, code_challenge_method, auth_time, acr, amr, claims, grant_id, created_at, expires_at, consumed_at)
      SELECT ${b64u(`'growth-code-' || i`)}, '${client.client_id}', ${sql_user_id(token_user("i"))}, NULL, '${CALLBACK}', 'openid profile email', NULL,
             ${b64u(`'growth-verifier-' || i`)}, 'S256', ${now} - 60, NULL, '["pwd"]'::jsonb, NULL, md5('growth-code-grant-' || i)::uuid::text,
             e - 60, e, CASE WHEN i % 10 < 9 THEN e - 59 END
      FROM (SELECT i, CASE WHEN ${sql_expired("i")} THEN ${now} - 1 - i % 3600 ELSE ${now} + 1 + i % 59 END AS e FROM generate_series(${lo}::bigint, ${hi}::bigint) AS i) AS s`,
    );
    await chunked(
      sql,
      counts.interactions,
      100_000,
      1,
      "interactions",
      (lo, hi) => `
      INSERT INTO interactions (id, params, session_id_hash, result, created_at, expires_at)
      SELECT ${b64u(`'growth-interaction-' || i`)}, jsonb_build_object('client_id', '${client.client_id}', 'response_type', 'code', 'redirect_uri', '${CALLBACK}', 'scope', 'openid profile email', 'state', md5(i::text)),
             NULL, NULL, e - 600, e
      FROM (SELECT i, CASE WHEN ${sql_expired("i")} THEN ${now} - 1 - i % 3600 ELSE ${now} + 1 + i % 599 END AS e FROM generate_series(${lo}::bigint, ${hi}::bigint) AS i) AS s`,
    );

    log("rebuilding indexes");
    const rebuild = [`ALTER TABLE tokens ADD CONSTRAINT tokens_pkey ${pk[0]!.def}`, ...secondary.map((i) => i.def)];
    // Two at a time: one per core.
    const queue = [...rebuild];
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        for (let s = queue.shift(); s; s = queue.shift()) {
          const t = performance.now();
          await sql.begin(async (tx) => {
            await tx.unsafe("SET LOCAL maintenance_work_mem = '512MB'");
            await tx.unsafe(s);
          });
          log(`${((performance.now() - t) / 1000).toFixed(0)} s: ${s.slice(0, 90)}`);
        }
      }),
    );
    const after = await index_definitions(sql);
    if (JSON.stringify(after) !== JSON.stringify(before)) throw new Error(`index definitions changed:\n${JSON.stringify(before)}\n${JSON.stringify(after)}`);
    log("VACUUM ANALYZE");
    await sql.unsafe("VACUUM ANALYZE");
    const sizes = await table_sizes(sql);
    const meta: Meta = { db: name, url, now, counts, client, others, seconds: (performance.now() - t0) / 1000, sizes };
    mkdirSync(META_DIR, { recursive: true });
    writeFileSync(join(META_DIR, `${name}.json`), JSON.stringify(meta, null, 2));
    return meta;
  } finally {
    await sql.close();
  }
}

export function read_meta(name: string): Meta {
  return JSON.parse(readFileSync(join(META_DIR, `${name}.json`), "utf8")) as Meta;
}

export async function table_sizes(sql: SQL): Promise<TableSize[]> {
  const rows = (await sql.unsafe(`
    SELECT c.relname AS table, c.reltuples::bigint AS rows,
           pg_total_relation_size(c.oid) / 1048576.0 AS total_mib, pg_relation_size(c.oid) / 1048576.0 AS heap_mib, pg_indexes_size(c.oid) / 1048576.0 AS index_mib
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'r' AND pg_total_relation_size(c.oid) > 100000
    ORDER BY pg_total_relation_size(c.oid) DESC`)) as { table: string; rows: string; total_mib: string; heap_mib: string; index_mib: string }[];
  return rows.map((r) => ({ table: r.table, rows: Number(r.rows), total_mib: Number(r.total_mib), heap_mib: Number(r.heap_mib), index_mib: Number(r.index_mib) }));
}

export function sizes_table(sizes: TableSize[]): string {
  const lines = ["| table | rows (estimate) | total MiB | heap MiB | indexes MiB |", "| --- | ---: | ---: | ---: | ---: |"];
  const n = (v: number, f: (v: number) => string) => (Number.isNaN(v) ? "–" : f(v));
  for (const s of sizes)
    lines.push(
      `| ${s.table} | ${n(s.rows, (v) => v.toLocaleString("en"))} | ${n(s.total_mib, (v) => v.toFixed(0))} | ${n(s.heap_mib, (v) => v.toFixed(0))} | ${n(s.index_mib, (v) => v.toFixed(0))} |`,
    );
  return lines.join("\n");
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function scaled(scale: number): Counts {
  const s = (n: number) => Math.max(1, Math.round(n * scale));
  return { users: s(FULL.users), sessions: s(FULL.sessions), tokens: s(FULL.tokens), codes: s(FULL.codes), interactions: s(FULL.interactions) };
}

if (import.meta.main) {
  const name = arg("--db") ?? new_db_name("seed");
  const scale = Number(arg("--scale") ?? 1);
  const keep = process.argv.includes("--keep");
  await create_database(name);
  try {
    const meta = await seed_postgres(name, scaled(scale));
    console.log(`Seeded ${name} in ${meta.seconds.toFixed(0)} s: ${JSON.stringify(meta.counts)}\n`);
    console.log(sizes_table(meta.sizes));
  } finally {
    if (!keep) await drop_database(name);
    else console.error(`kept ${name} (drop it with: psql -h 127.0.0.1 -U postgres -d test -c 'DROP DATABASE "${name}"')`);
  }
}
