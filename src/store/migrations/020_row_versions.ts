/**
 * Version 20: `version` on `users`, `clients` and `upstreams`, a counter every update of the row
 * raises by one (the adapters do it in the UPDATE itself). The admin API's changes are
 * compare-and-set on it (store/types/common.ts `IfVersion`): a PATCH or DELETE whose If-Match
 * was checked against the row at version n writes only while the row is still at n, so of two
 * requests sent with the same ETag one wins and the other is answered 412 (RFC 9110 §13.1.1).
 * `updated_at` cannot serve: it has one-second resolution, and two changes within one second
 * would share it. Existing rows start at 0.
 */
import type { Migration } from "./migration.ts";

const SQL = `
ALTER TABLE users ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clients ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE upstreams ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
`;

export const row_versions: Migration = {
  version: 20,
  name: "row versions",
  sqlite: SQL,
  postgres: SQL,
};
