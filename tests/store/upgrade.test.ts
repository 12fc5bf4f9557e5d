/**
 * Upgrading a database that holds data: a store at schema version 2 with users, clients, codes
 * and tokens of every shape opens on this build, which applies migration 3 (partial token
 * indexes) and the later ones (4: initial access tokens get ids and use limits); the rows read back unchanged and every revoke query still finds its tokens, on both
 * databases. On PostgreSQL the plans are checked too (SQLite's are in sqlite_plans.test.ts).
 */
import { open_raw_sqlite } from "../helpers/raw_sqlite.ts";
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { latest_version, migrations } from "../../src/store/migrations/index.ts";
import { migrate, open_store } from "../../src/store/open.ts";
import { create_temp_database, use_postgres, pg_connect } from "./pg.ts";
import { planned_queries } from "./token_queries.ts";
import { T0 } from "./fixtures.ts";

// Rows as an older build wrote them; one text for both databases (FALSE is 0 in SQLite).
const ROWS = `
INSERT INTO users (id, username, username_key, password_hash, email_verified, phone_number_verified, created_at, updated_at)
  VALUES ('u1', 'alice', 'alice', 'h', FALSE, FALSE, ${T0}, ${T0});
INSERT INTO clients (client_id, client_secret_expires_at, client_id_issued_at, metadata, created_at, updated_at)
  VALUES ('c1', 0, ${T0}, '{"redirect_uris":["https://rp.example/cb"]}', ${T0}, ${T0});
INSERT INTO sessions (id_hash, user_id, auth_time, amr, created_at, expires_at, last_seen_at)
  VALUES ('s1', 'u1', ${T0}, '["pwd"]', ${T0}, ${T0 + 3600}, ${T0});
INSERT INTO session_clients (session_id_hash, client_id, created_at) VALUES ('s1', 'c1', ${T0});
INSERT INTO codes (code_hash, client_id, user_id, session_id_hash, redirect_uri, scope, auth_time, amr, grant_id, created_at, expires_at)
  VALUES ('k1', 'c1', 'u1', 's1', 'https://rp.example/cb', 'openid', ${T0}, '["pwd"]', 'g1', ${T0}, ${T0 + 60});
INSERT INTO tokens (token_hash, kind, client_id, user_id, scope, grant_id, family_id, session_id_hash, auth_time, amr, created_at, expires_at)
  VALUES ('cc', 'access', 'c1', NULL, 'api', 'g0', NULL, NULL, NULL, '[]', ${T0}, ${T0 + 3600}),
         ('at', 'access', 'c1', 'u1', 'openid', 'g1', 'g1', 's1', ${T0}, '["pwd"]', ${T0}, ${T0 + 3600}),
         ('rt', 'refresh', 'c1', 'u1', 'openid offline_access', 'g1', 'g1', 's1', ${T0}, '["pwd"]', ${T0}, ${T0 + 86400}),
         ('at2', 'access', 'c1', 'u1', 'openid', 'g2', NULL, NULL, ${T0}, '["pwd"]', ${T0}, ${T0 + 3600});
INSERT INTO initial_access_tokens (token_hash, created_at, expires_at) VALUES ('iat1', ${T0}, NULL), ('iat2', ${T0}, ${T0 + 60});
`;

const older = migrations.filter((m) => m.version <= 2);
const newer = migrations.filter((m) => m.version > 2).map((m) => m.version);
const NOW = T0 + 10;

/** Opens the upgraded database and checks rows and every revoke path. */
async function check_upgraded(url: string): Promise<void> {
  expect(await migrate(url)).toEqual({ applied: newer, version: latest_version });
  const store = await open_store(url, { migrate: false });
  try {
    expect(await store.get_token("cc")).toMatchObject({ user_id: null, family_id: null, session_id_hash: null, amr: [], scope: "api" });
    expect(await store.get_token("rt")).toMatchObject({ kind: "refresh", user_id: "u1", family_id: "g1", session_id_hash: "s1", amr: ["pwd"] });
    expect(await store.get_code("k1")).toMatchObject({ user_id: "u1", grant_id: "g1", amr: ["pwd"] });
    expect(await store.list_session_clients("s1")).toEqual(["c1"]);
    // Migration 19: a client made before is not anonymous (so never deleted as unused), and has no use recorded.
    expect(await store.get_client("c1")).toMatchObject({ anonymous: false, first_used_at: null });
    // Migration 4: tokens made before keep their expiry, get distinct ids and no use limit.
    const tokens = await store.list_initial_access_tokens();
    expect(tokens.map(({ token_hash, expires_at, uses_left }) => ({ token_hash, expires_at, uses_left }))).toEqual([
      { token_hash: "iat1", expires_at: null, uses_left: null },
      { token_hash: "iat2", expires_at: T0 + 60, uses_left: null },
    ]);
    expect(new Set(tokens.map((token) => token.id)).size).toBe(2);
    for (const token of tokens) expect(token.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await store.use_initial_access_token("iat1", NOW)).toMatchObject({ token_hash: "iat1", uses_left: null });
    // A token written after the upgrade, without a user, next to the old ones.
    await store.insert_token({ token_hash: "cc2", kind: "access", client_id: "c1", scope: "api", grant_id: "g3", expires_at: T0 + 60 });
    expect(await store.revoke_by_session("s1", NOW, { keep_offline_refresh: true })).toBe(1); // at
    expect(await store.revoke_family("g1", NOW)).toBe(1); // rt
    expect(await store.revoke_for_user_client("u1", "c1", NOW)).toBe(1); // at2
    expect(await store.revoke_by_grant("g0", NOW)).toBe(1); // cc
    expect((await store.get_token("cc2"))?.revoked_at).toBeNull();
    expect(await store.delete_user("u1")).toBe(true);
    expect(await store.get_token("rt")).toBeNull();
    expect(await store.get_token("cc2")).not.toBeNull();
    expect((await store.purge_expired(T0 + 61)).tokens).toBe(1); // cc2
  } finally {
    await store.close();
  }
}

describe("upgrade to partial token indexes: sqlite", () => {
  const dir = mkdtempSync(join(tmpdir(), "idp-upgrade-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a version 2 database with rows migrates to the latest version; rows and revoke queries intact", async () => {
    const path = join(dir, "v2.db");
    const raw = open_raw_sqlite(path);
    raw.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT");
    for (const m of older) {
      raw.exec(m.sqlite);
      raw.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)", m.version, m.name);
    }
    raw.exec(ROWS);
    raw.close();
    await check_upgraded(`sqlite:${path}`);
    const check = open_raw_sqlite(path, { readonly: true });
    try {
      const partial = check.all("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tokens' AND sql LIKE '% IS NOT NULL' ORDER BY name");
      expect(partial).toEqual([{ name: "tokens_family_id" }, { name: "tokens_session_id_hash" }, { name: "tokens_user_client" }]);
      expect(check.get("PRAGMA integrity_check")).toEqual({ integrity_check: "ok" });
    } finally {
      check.close();
    }
  });
});

if (await use_postgres()) {
  describe("upgrade to partial token indexes: postgres", () => {
    test("a version 2 database with rows migrates to the latest version; rows and revoke queries intact", async () => {
      const db = await create_temp_database();
      const sql = pg_connect(db.url);
      try {
        await sql`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`;
        for (const m of older) {
          await sql.unsafe(m.postgres);
          await sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, 0)`;
        }
        await sql.unsafe(ROWS);
        await check_upgraded(db.url);
        const partial: { indexname: string }[] = await sql`
          SELECT indexname FROM pg_indexes WHERE tablename = 'tokens' AND indexdef LIKE '%IS NOT NULL)' ORDER BY indexname`;
        expect(partial.map((r) => r.indexname)).toEqual(["tokens_family_id", "tokens_session_id_hash", "tokens_user_client"]);
      } finally {
        await sql.end({ timeout: 0 });
        await db.drop();
      }
    });

    test("every revoke, cascade, purge and session_clients query can use its index (EXPLAIN, sequential scans off)", async () => {
      const db = await create_temp_database();
      const sql = pg_connect(db.url);
      try {
        await migrate(db.url);
        // On a near-empty table the planner rightly prefers a sequential scan; with it priced
        // out, a plan without an index means the index cannot serve the query.
        const plans = await sql.begin(async (tx) => {
          await tx`SET LOCAL enable_seqscan = off`;
          // Generic plans, as for a prepared statement whose parameters are not known yet: the
          // partial indexes must be usable whatever the value.
          await tx`SET LOCAL plan_cache_mode = force_generic_plan`;
          const out: Record<string, string> = {};
          for (const [i, q] of planned_queries.entries()) {
            const params = new Set(q.postgres.match(/\$\d+/g) ?? []).size;
            await tx.unsafe(`PREPARE planned_${i} AS ${q.postgres}`);
            const args = Array.from({ length: params }, () => "'1'").join(", ");
            const rows: { "QUERY PLAN": string }[] = await tx.unsafe(`EXPLAIN EXECUTE planned_${i}${params ? `(${args})` : ""}`);
            out[q.name] = rows.map((r) => r["QUERY PLAN"]).join("\n");
            await tx.unsafe(`DEALLOCATE planned_${i}`);
          }
          return out;
        });
        for (const q of planned_queries) {
          expect({ query: q.name, uses: plans[q.name]!.includes(q.index) }).toEqual({ query: q.name, uses: true });
          expect(plans[q.name]).not.toMatch(/Seq Scan/);
        }
      } finally {
        await sql.end({ timeout: 0 });
        await db.drop();
      }
    });
  });
}
