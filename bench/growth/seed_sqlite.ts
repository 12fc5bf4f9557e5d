/**
 * The same data as seed.ts (shape.ts: same rows, same secrets, same expiries) in a SQLite file.
 * SQLite has no SHA-256 in SQL, so the rows are made here and inserted with prepared statements,
 * 100,000 to a transaction, with the secondary indexes dropped for the load and created again
 * from their own `CREATE INDEX` text (checked identical after). The schema comes from
 * `idp migrate`, the clients from `idp clients add`.
 *
 *     node_modules/.bin/bun run bench/growth/seed_sqlite.ts [--scale 1] [--keep]
 */
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secret_key, sha256 } from "../../src/oidc/crypto/secrets.ts";
import {
  ACCESS_TTL,
  CALLBACK,
  REFRESH_TTL,
  SESSION_TTL,
  expired,
  is_refresh,
  session_cookie,
  session_expires_at,
  token_expires_at,
  token_value,
  username,
  type Counts,
} from "./shape.ts";
import { prepare_database, type Meta, type TableSize } from "./seed.ts";

const log = (msg: string) => console.error(`[seed-sqlite ${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** PostgreSQL's md5(text)::uuid::text, so user ids are the same as seed.ts's. */
export function user_id(i: number): string {
  const h = createHash("md5").update(`growth-user-${i}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
const uuid_of = (label: string) => {
  const h = createHash("md5").update(label).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

export function new_sqlite_dir(): string {
  return mkdtempSync(join(tmpdir(), "idp-growth-"));
}

export async function seed_sqlite(dir: string, counts: Counts): Promise<Meta> {
  const t0 = performance.now();
  const file = join(dir, "idp.sqlite");
  const url = `sqlite:${file}`;
  const { client, others, password_hash, now } = await prepare_database(url);
  const db = new Database(file);
  try {
    db.run("PRAGMA foreign_keys = OFF");
    db.run("PRAGMA synchronous = OFF");
    db.run("PRAGMA cache_size = -1000000");
    const tables = ["users", "sessions", "session_clients", "grants", "tokens", "codes", "interactions"];
    const list = `(${tables.map((t) => `'${t}'`).join(",")})`;
    const before = db.query(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ${list} ORDER BY name`).all() as {
      name: string;
      sql: string;
    }[];
    for (const i of before) db.run(`DROP INDEX "${i.name}"`);

    const load = (label: string, n: number, sql: string, row: (i: number) => unknown[]) => {
      const stmt = db.query(sql);
      const t = performance.now();
      for (let lo = 1; lo <= n; lo += 100_000) {
        db.transaction(() => {
          for (let i = lo; i <= Math.min(n, lo + 99_999); i++) stmt.run(...(row(i) as never[]));
        })();
        log(`${label}: ${Math.min(n, lo + 99_999)}/${n} (${((performance.now() - t) / 1000).toFixed(0)} s)`);
      }
    };
    const created = now - 86400 * 90;
    load(
      "users",
      counts.users,
      `INSERT INTO users (id, username, username_key, password_hash, name, given_name, family_name, email, email_verified, phone_number_verified, created_at, updated_at, status) VALUES (?,?,?,?,?,?,?,?,1,0,?,?,'active')`,
      (i) => [
        user_id(i),
        username(i),
        username(i),
        password_hash,
        `Growth User ${i}`,
        "Growth",
        `User ${i}`,
        `${username(i)}@example.com`,
        created + (i % 86400),
        created + (i % 86400),
      ],
    );
    load(
      "grants",
      counts.users,
      `INSERT INTO grants (user_id, client_id, scopes, claims, created_at, updated_at) VALUES (?, ?, '["openid","profile","email","offline_access"]', NULL, ?, ?)`,
      (i) => [user_id(i), client.client_id, now - 86400 * 30, now - 86400 * 30],
    );
    const session_user = (i: number) => ((i - 1) % counts.users) + 1;
    load(
      "sessions",
      counts.sessions,
      `INSERT INTO sessions (id_hash, user_id, auth_time, amr, acr, created_at, expires_at, last_seen_at, user_agent, ip) VALUES (?, ?, ?, '["pwd"]', NULL, ?, ?, ?, 'Mozilla/5.0 (X11; Linux x86_64) growth-bench', '127.0.0.1')`,
      (i) => {
        const e = session_expires_at(i, now);
        return [sha256(session_cookie(i)), user_id(session_user(i)), e - SESSION_TTL, e - SESSION_TTL, e, e - SESSION_TTL];
      },
    );
    load("session_clients", counts.sessions, `INSERT INTO session_clients (session_id_hash, client_id, created_at) VALUES (?, ?, ?)`, (i) => [
      sha256(session_cookie(i)),
      client.client_id,
      now - 3600,
    ]);
    load(
      "tokens",
      counts.tokens,
      `INSERT INTO tokens (token_hash, kind, client_id, user_id, scope, grant_id, family_id, session_id_hash, auth_time, acr, amr, claims, nonce, created_at, expires_at) VALUES (?,?,?,?,?,?,?,?,?,NULL,'["pwd"]',NULL,NULL,?,?)`,
      (i) => {
        const r = is_refresh(i);
        const e = token_expires_at(i, now);
        const c = e - (r ? REFRESH_TTL : ACCESS_TTL);
        const u = ((i - 1) % counts.users) + 1;
        return [
          secret_key(token_value(i, now)),
          r ? "refresh" : "access",
          i % 10 === 9 ? others[Math.floor(i / 10) % others.length]! : client.client_id,
          user_id(u),
          r ? "openid profile email offline_access" : "openid profile email",
          uuid_of(`growth-grant-${Math.floor(i / 2)}`),
          r ? uuid_of(`growth-family-${i}`) : null,
          u <= counts.sessions ? sha256(session_cookie(u)) : null,
          c - 5,
          c,
          e,
        ];
      },
    );
    load(
      "codes",
      counts.codes,
      `INSERT INTO codes (code_hash, client_id, user_id, session_id_hash, redirect_uri, scope, nonce, code_challenge, code_challenge_method, auth_time, acr, amr, claims, grant_id, created_at, expires_at, consumed_at) VALUES (?,?,?,NULL,?,'openid profile email',NULL,?,'S256',?,NULL,'["pwd"]',NULL,?,?,?,?)`,
      (i) => {
        const e = expired(i) ? now - 1 - (i % 3600) : now + 1 + (i % 59);
        return [
          sha256(`growth-code-${i}`),
          client.client_id,
          user_id(((i - 1) % counts.users) + 1),
          CALLBACK,
          sha256(`growth-verifier-${i}`),
          now - 60,
          uuid_of(`growth-code-grant-${i}`),
          e - 60,
          e,
          i % 10 < 9 ? e - 59 : null,
        ];
      },
    );
    load("interactions", counts.interactions, `INSERT INTO interactions (id, params, session_id_hash, result, created_at, expires_at) VALUES (?, ?, NULL, NULL, ?, ?)`, (i) => {
      const e = expired(i) ? now - 1 - (i % 3600) : now + 1 + (i % 599);
      return [
        sha256(`growth-interaction-${i}`),
        JSON.stringify({ client_id: client.client_id, response_type: "code", redirect_uri: CALLBACK, scope: "openid profile email", state: String(i) }),
        e - 600,
        e,
      ];
    });
    log("rebuilding indexes");
    for (const i of before) {
      const t = performance.now();
      db.run(i.sql);
      log(`${((performance.now() - t) / 1000).toFixed(0)} s: ${i.name}`);
    }
    const after = db.query(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ${list} ORDER BY name`).all();
    if (JSON.stringify(after) !== JSON.stringify(before)) throw new Error("index definitions changed");
    log("ANALYZE");
    db.run("ANALYZE");
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    const sizes: TableSize[] = tables.map((t) => ({
      table: t,
      rows: (db.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n,
      total_mib: NaN,
      heap_mib: NaN,
      index_mib: NaN,
    }));
    sizes.push({ table: "(whole file)", rows: NaN, total_mib: statSync(file).size / 1048576, heap_mib: NaN, index_mib: NaN });
    return { db: dir, url, now, counts, client, others, seconds: (performance.now() - t0) / 1000, sizes, kind: "sqlite" };
  } finally {
    db.close();
  }
}

export function drop_sqlite(dir: string): void {
  if (existsSync(join(dir, "idp.sqlite")) && dir.includes("idp-growth-")) rmSync(dir, { recursive: true, force: true });
}

if (import.meta.main) {
  const { scaled, sizes_table } = await import("./seed.ts");
  const i = process.argv.indexOf("--scale");
  const dir = new_sqlite_dir();
  try {
    const meta = await seed_sqlite(dir, scaled(i >= 0 ? Number(process.argv[i + 1]) : 1));
    console.log(`Seeded ${meta.url} in ${meta.seconds.toFixed(0)} s: ${JSON.stringify(meta.counts)}\n`);
    console.log(sizes_table(meta.sizes));
  } finally {
    if (!process.argv.includes("--keep")) drop_sqlite(dir);
    else console.error(`kept ${dir}`);
  }
}
