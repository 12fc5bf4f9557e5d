/**
 * Version 3: the token indexes on columns a client_credentials token leaves NULL (user_id,
 * family_id, session_id_hash) become partial, `WHERE col IS NOT NULL`. Every query through them
 * has `col = value`, which implies NOT NULL, so both planners still use them (checked in
 * tests/store/sqlite_plans.test.ts); a token without a user then writes 5 B-trees instead of 8
 * (bench/store: see bench/RESULTS.md). The user foreign key's cascade looks tokens up by
 * `user_id = ?` too.
 *
 * No index was redundant: none is a prefix of another or of a primary key, and grant_id,
 * client_id and expires_at are never NULL. The same text runs on both databases; on PostgreSQL,
 * CREATE INDEX blocks writes to tokens while it runs (once, at upgrade).
 */
import type { Migration } from "./migration.ts";

const sql = `
DROP INDEX tokens_user_client;
CREATE INDEX tokens_user_client ON tokens (user_id, client_id) WHERE user_id IS NOT NULL;
DROP INDEX tokens_family_id;
CREATE INDEX tokens_family_id ON tokens (family_id) WHERE family_id IS NOT NULL;
DROP INDEX tokens_session_id_hash;
CREATE INDEX tokens_session_id_hash ON tokens (session_id_hash) WHERE session_id_hash IS NOT NULL;
`;

export const partial_token_indexes: Migration = {
  version: 3,
  name: "partial token indexes",
  sqlite: sql,
  postgres: sql,
};
