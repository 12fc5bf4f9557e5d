/**
 * The token, code and session_clients queries whose plans tests/store check, in each database's
 * parameter style, with the index each must use. They repeat the adapters' statements
 * (src/store/{sqlite,postgres}/tokens.ts, sessions.ts, index.ts): when one changes, change it here.
 */
/** `index` is the PostgreSQL name; `sqliteIndex` the SQLite one when it differs (primary keys). */
export type PlannedQuery = { name: string; sqlite: string; postgres: string; index: string; sqliteIndex?: string };

export const planned_queries: readonly PlannedQuery[] = [
  {
    name: "find_users_by_email",
    sqlite: "SELECT * FROM users WHERE lower(email) = lower($email) ORDER BY created_at, id",
    postgres: "SELECT * FROM users WHERE lower(email) = lower($1) ORDER BY created_at, id",
    index: "users_email_lower",
  },
  {
    name: "revoke_by_grant",
    sqlite: "UPDATE tokens SET revoked_at = $now WHERE grant_id = $grant_id AND revoked_at IS NULL",
    postgres: "UPDATE tokens SET revoked_at = $1 WHERE grant_id = $2 AND revoked_at IS NULL",
    index: "tokens_grant_id",
  },
  {
    name: "revoke_family",
    sqlite: "UPDATE tokens SET revoked_at = $now WHERE family_id = $family_id AND revoked_at IS NULL",
    postgres: "UPDATE tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL",
    index: "tokens_family_id",
  },
  {
    name: "revoke_for_user_client",
    sqlite: "UPDATE tokens SET revoked_at = $now WHERE user_id = $user_id AND client_id = $client_id AND revoked_at IS NULL",
    postgres: "UPDATE tokens SET revoked_at = $1 WHERE user_id = $2 AND client_id = $3 AND revoked_at IS NULL",
    index: "tokens_user_client",
  },
  {
    name: "revoke_by_session",
    sqlite: "UPDATE tokens SET revoked_at = $now WHERE session_id_hash = $session_id_hash AND revoked_at IS NULL",
    postgres: "UPDATE tokens SET revoked_at = $1 WHERE session_id_hash = $2 AND revoked_at IS NULL",
    index: "tokens_session_id_hash",
  },
  {
    name: "revoke_by_session, keep_offline_refresh",
    sqlite: `UPDATE tokens SET revoked_at = $now WHERE session_id_hash = $session_id_hash AND revoked_at IS NULL
     AND NOT (kind = 'refresh' AND (' ' || scope || ' ') LIKE $offline ESCAPE '!')`,
    postgres: `UPDATE tokens SET revoked_at = $1 WHERE session_id_hash = $2 AND revoked_at IS NULL
     AND NOT (kind = 'refresh' AND (' ' || scope || ' ') LIKE $3 ESCAPE '!')`,
    index: "tokens_session_id_hash",
  },
  {
    name: "the user foreign key's cascade",
    sqlite: "DELETE FROM tokens WHERE user_id = $user_id",
    postgres: "DELETE FROM tokens WHERE user_id = $1",
    index: "tokens_user_client",
  },
  {
    name: "the client foreign key's cascade",
    sqlite: "DELETE FROM tokens WHERE client_id = $client_id",
    postgres: "DELETE FROM tokens WHERE client_id = $1",
    index: "tokens_client_id",
  },
  {
    name: "purge_expired, tokens",
    sqlite: "DELETE FROM tokens WHERE rowid IN (SELECT rowid FROM tokens WHERE expires_at <= $now LIMIT $limit)",
    postgres: "DELETE FROM tokens WHERE ctid = ANY(ARRAY(SELECT ctid FROM tokens WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED))",
    index: "tokens_expires_at",
  },
  {
    name: "purge_expired, codes",
    sqlite: "DELETE FROM codes WHERE rowid IN (SELECT rowid FROM codes WHERE expires_at <= $now LIMIT $limit)",
    postgres: "DELETE FROM codes WHERE ctid = ANY(ARRAY(SELECT ctid FROM codes WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED))",
    index: "codes_expires_at",
  },
  {
    name: "get_token and rotate_refresh_token, the revoked grant or family (migration 022)",
    sqlite: "SELECT min(r.revoked_at) FROM revoked_grants r WHERE r.grant_id IN ($grant_id, $family_id)",
    postgres: "SELECT min(r.revoked_at) FROM revoked_grants r WHERE r.grant_id IN ($1, $2)",
    index: "revoked_grants_pkey",
    sqliteIndex: "sqlite_autoindex_revoked_grants_1",
  },
  {
    name: "purge_expired, revoked_grants",
    sqlite: `DELETE FROM revoked_grants WHERE rowid IN (SELECT rowid FROM revoked_grants WHERE revoked_at <= $now - 86400
      AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = revoked_grants.grant_id)
      AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.family_id = revoked_grants.grant_id) LIMIT $limit)`,
    postgres: `DELETE FROM revoked_grants WHERE ctid = ANY(ARRAY(SELECT ctid FROM revoked_grants WHERE revoked_at <= $1 - 86400
      AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = revoked_grants.grant_id)
      AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.family_id = revoked_grants.grant_id) LIMIT $2 FOR UPDATE SKIP LOCKED))`,
    // PostgreSQL joins the tokens' indexes (anti joins); SQLite searches by revoked_at first.
    index: "tokens_grant_id",
    sqliteIndex: "revoked_grants_revoked_at",
  },
  {
    name: "list_session_clients",
    sqlite: "SELECT client_id FROM session_clients WHERE session_id_hash = $session_id_hash ORDER BY client_id",
    postgres: "SELECT client_id FROM session_clients WHERE session_id_hash = $1 ORDER BY client_id",
    index: "session_clients_pkey",
    sqliteIndex: "sqlite_autoindex_session_clients_1",
  },
];
