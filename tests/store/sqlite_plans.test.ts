/**
 * SQLite query plans: every revoke, cascade, purge, session_clients and e-mail lookup query searches an index,
 * never scans a table. The partial token indexes (migration 3) are only usable when the planner
 * sees that the query implies `col IS NOT NULL`; this is where that is proved. The plans as
 * SQLite 3.5x prints them, for reference:
 *
 *   find_users_by_email     SEARCH users USING INDEX users_email_lower (<expr>=?)
 *   revoke_by_grant         SEARCH tokens USING INDEX tokens_grant_id (grant_id=?)
 *   revoke_family          SEARCH tokens USING INDEX tokens_family_id (family_id=?)
 *   revoke_for_user_client   SEARCH tokens USING INDEX tokens_user_client (user_id=? AND client_id=?)
 *   revoke_by_session (±keep_offline_refresh)
 *                         SEARCH tokens USING INDEX tokens_session_id_hash (session_id_hash=?)
 *   user FK cascade       SEARCH tokens USING COVERING INDEX tokens_user_client (user_id=?)
 *   client FK cascade     SEARCH tokens USING COVERING INDEX tokens_client_id (client_id=?)
 *   purge_expired          SEARCH tokens USING INTEGER PRIMARY KEY (rowid=?) | LIST SUBQUERY 1 |
 *                         SEARCH tokens USING COVERING INDEX tokens_expires_at (expires_at<?)
 *   list_session_clients    SEARCH session_clients USING COVERING INDEX sqlite_autoindex_session_clients_1 (session_id_hash=?)
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { migrate_sqlite } from "../../src/store/sqlite/connection.ts";
import { load_sqlite_driver } from "../../src/store/sqlite/load_driver.ts";
import { planned_queries } from "./token_queries.ts";

/** The runtime's SQLite driver: bun:sqlite, or node:sqlite on Deno (the planner is SQLite's either way). */
const sqlite = await load_sqlite_driver();

describe("sqlite query plans", () => {
  const db = sqlite.open(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  migrate_sqlite(db);
  afterAll(() => db.close());

  const plan = (text: string): string => (db.query(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[]).map((row) => row.detail).join(" | ");

  for (const q of planned_queries) {
    test(`${q.name} searches ${q.sqliteIndex ?? q.index}`, () => {
      const detail = plan(q.sqlite);
      expect(detail).toMatch(new RegExp(`SEARCH \\w+ USING (COVERING )?INDEX ${q.sqliteIndex ?? q.index} \\(`));
      expect(detail).not.toMatch(/\bSCAN\b/);
    });
  }

  test("the purge's anonymous clients never used (delete_unused_clients) search the partial clients_unused_anonymous index", () => {
    const detail = plan("SELECT * FROM clients WHERE anonymous = 1 AND first_used_at IS NULL AND created_at <= 10 ORDER BY created_at, client_id LIMIT 5");
    expect(detail).toMatch(/SEARCH clients USING INDEX clients_unused_anonymous \(created_at<\?\)/);
    expect(detail).not.toMatch(/\bSCAN\b/);
  });

  // The cascade of a foreign key is compiled into the parent's DELETE, which EXPLAIN QUERY PLAN
  // does not show; its bytecode opens the child index it searches.
  test("deleting a user opens the partial tokens_user_client index for the cascade", () => {
    const root = (db.query("SELECT rootpage FROM sqlite_master WHERE name = 'tokens_user_client'").get() as { rootpage: number }).rootpage;
    const opens = (db.query("EXPLAIN DELETE FROM users WHERE id = 'u'").all() as { opcode: string; p2: number }[])
      .filter((op) => op.opcode === "OpenRead" || op.opcode === "OpenWrite")
      .map((op) => op.p2);
    expect(opens).toContain(root);
  });
});
