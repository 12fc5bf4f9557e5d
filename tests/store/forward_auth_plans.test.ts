/**
 * SQLite query plans of forward authentication's hot path and cascades: the applications of a
 * host, the session behind a forward-auth cookie (one query), a first access, and the deletes a
 * session's and an application's end cascade to all search an index, never scan a table.
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { migrate_sqlite } from "../../src/store/sqlite/connection.ts";
import { load_sqlite_driver } from "../../src/store/sqlite/load_driver.ts";

// The runtime's SQLite driver (bun:sqlite or node:sqlite): the plans are SQLite's, the same on both.
const driver = await load_sqlite_driver();

describe("sqlite query plans: forward authentication", () => {
  const db = driver.open(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  migrate_sqlite(db);
  afterAll(() => db.close());
  const plan = (text: string): string => (db.query(`EXPLAIN QUERY PLAN ${text}`).all() as { detail: string }[]).map((row) => row.detail).join(" | ");

  const cases: [string, string, RegExp][] = [
    [
      "the applications of a host",
      "SELECT * FROM protected_apps WHERE host = ?1 ORDER BY length(path) DESC, path",
      /SEARCH protected_apps USING INDEX sqlite_autoindex_protected_apps_2 \(host=\?\)/,
    ],
    [
      "the session of a forward-auth cookie",
      "SELECT sessions.* FROM forward_auth_tokens JOIN sessions ON sessions.id_hash = forward_auth_tokens.session_id_hash WHERE forward_auth_tokens.id_hash = ?1",
      /SEARCH forward_auth_tokens USING INDEX sqlite_autoindex_forward_auth_tokens_1 \(id_hash=\?\) \| SEARCH sessions USING INDEX sqlite_autoindex_sessions_1 \(id_hash=\?\)/,
    ],
    [
      "a session's tokens (its delete cascades)",
      "DELETE FROM forward_auth_tokens WHERE session_id_hash = ?1",
      /SEARCH forward_auth_tokens USING (COVERING )?INDEX forward_auth_tokens_session/,
    ],
    [
      "a session's accesses (its delete cascades)",
      "DELETE FROM protected_app_access WHERE session_id_hash = ?1",
      /SEARCH protected_app_access USING (COVERING )?INDEX sqlite_autoindex_protected_app_access_1/,
    ],
    [
      "an application's accesses (its delete cascades)",
      "DELETE FROM protected_app_access WHERE app_name = ?1",
      /SEARCH protected_app_access USING (COVERING )?INDEX protected_app_access_app/,
    ],
  ];
  for (const [name, sql, expected] of cases) {
    test(`${name} searches an index`, () => {
      const detail = plan(sql);
      expect(detail).toMatch(expected);
      expect(detail).not.toMatch(/\bSCAN\b/);
    });
  }
});
