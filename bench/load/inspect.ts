/**
 * The server's side of the ledger, read straight from its database (a second connection, while
 * it runs or after it died): codes issued and consumed, tokens, sign-in audit events, rows that
 * would betray a half-finished write, and how the driver's codes compare with the stored ones.
 */
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { secret_key } from "../../src/oidc/crypto/secrets.ts";
import type { Ledger } from "./driver.ts";
import type { Db } from "./target.ts";

type Query = (sql: string) => Promise<Record<string, unknown>[]>;

async function with_db<T>(db: Db, fn: (q: Query) => Promise<T>): Promise<T> {
  if (db.kind === "sqlite") {
    const conn = new Database(db.direct, { readwrite: true });
    conn.exec("PRAGMA busy_timeout = 5000");
    try {
      return await fn(async (sql) => conn.query(sql).all() as Record<string, unknown>[]);
    } finally {
      conn.close();
    }
  }
  const conn = new SQL(db.direct, { max: 1 });
  try {
    return await fn(async (sql) => (await conn.unsafe(sql)) as Record<string, unknown>[]);
  } finally {
    await conn.close();
  }
}

/** `PRAGMA integrity_check` of a SQLite file ("ok" when sound). */
export function integrity_check(file: string): string {
  const conn = new Database(file, { readwrite: true });
  try {
    return (conn.query("PRAGMA integrity_check").all() as { integrity_check: string }[]).map((r) => r.integrity_check).join("; ");
  } finally {
    conn.close();
  }
}

export type DbReport = {
  codes: number;
  codes_consumed: number;
  access_tokens: number;
  login_events: number;
  /** Rows no complete write leaves behind (expected 0 each). */
  bad_rows: Record<string, number>;
  /** Codes consumed with no token issued from them: the server died between the two writes, or the request was abandoned (fail-closed). */
  consumed_without_token: number;
};

const COUNTS = {
  codes: "SELECT count(*) AS n FROM codes",
  codes_consumed: "SELECT count(*) AS n FROM codes WHERE consumed_at IS NOT NULL",
  access_tokens: "SELECT count(*) AS n FROM tokens WHERE kind = 'access'",
  login_events: "SELECT count(*) AS n FROM audit_events WHERE type = 'login' AND outcome = 'success'",
  consumed_without_token: "SELECT count(*) AS n FROM codes c WHERE c.consumed_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = c.grant_id)",
};

const BAD_ROWS = {
  token_fields: "SELECT count(*) AS n FROM tokens WHERE token_hash = '' OR scope = '' OR grant_id = '' OR expires_at <= created_at OR user_id IS NULL",
  token_without_consumed_code: "SELECT count(*) AS n FROM tokens t WHERE NOT EXISTS (SELECT 1 FROM codes c WHERE c.grant_id = t.grant_id AND c.consumed_at IS NOT NULL)",
  code_fields: "SELECT count(*) AS n FROM codes WHERE code_hash = '' OR expires_at <= created_at OR (consumed_at IS NOT NULL AND consumed_at < created_at)",
  code_with_two_access_tokens: "SELECT count(*) AS n FROM (SELECT grant_id FROM tokens WHERE kind = 'access' GROUP BY grant_id HAVING count(*) > 1) g",
};

export function db_report(db: Db): Promise<DbReport> {
  return with_db(db, async (q) => {
    const n = async (sql: string) => Number((await q(sql))[0]!.n);
    const bad_rows: Record<string, number> = {};
    for (const [name, sql] of Object.entries(BAD_ROWS)) bad_rows[name] = await n(sql);
    return {
      codes: await n(COUNTS.codes),
      codes_consumed: await n(COUNTS.codes_consumed),
      access_tokens: await n(COUNTS.access_tokens),
      login_events: await n(COUNTS.login_events),
      consumed_without_token: await n(COUNTS.consumed_without_token),
      bad_rows,
    };
  });
}

export type LedgerMatch = {
  /** Codes the driver was given that the database does not have (lost writes). */
  issued_missing: number;
  /** Codes the driver redeemed that the database does not show consumed. */
  redeemed_not_consumed: number;
  /** Access tokens the driver holds that the database does not have. */
  tokens_missing: number;
  /** Stored codes the driver never saw (issued to a browser that died with the server, or a bug). */
  stored_not_seen: number;
};

/** Compares the driver's codes and tokens with the stored rows (by their stored keys: crypto/secrets.ts secret_key). */
export function match_ledger(db: Db, ledger: Ledger): Promise<LedgerMatch> {
  return with_db(db, async (q) => {
    const codes = new Map((await q("SELECT code_hash, consumed_at FROM codes")).map((r) => [String(r.code_hash), r.consumed_at !== null]));
    const tokens = new Set((await q("SELECT token_hash FROM tokens WHERE kind = 'access'")).map((r) => String(r.token_hash)));
    const seen = new Set([...ledger.issued.keys()].map(secret_key));
    let issued_missing = 0;
    let redeemed_not_consumed = 0;
    let tokens_missing = 0;
    for (const hash of seen) if (!codes.has(hash)) issued_missing++;
    for (const r of ledger.redeemed.values()) {
      if (codes.get(secret_key(r.code)) !== true) redeemed_not_consumed++;
      if (!tokens.has(secret_key(r.access_token))) tokens_missing++;
    }
    const stored_not_seen = [...codes.keys()].filter((hash) => !seen.has(hash)).length;
    return { issued_missing, redeemed_not_consumed, tokens_missing, stored_not_seen };
  });
}
