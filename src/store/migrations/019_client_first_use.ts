/**
 * Version 19: which clients registered themselves anonymously, and whether they were ever used
 * (oidc/registration/unused_clients.ts).
 *
 * - `clients.anonymous`: registered at /register without an initial access token
 *   (IDP_REGISTRATION=open, RFC 7591 §3). False for every client made before this version (whether
 *   one was anonymous cannot be told now: none is ever deleted as unused) and for every client an
 *   operator made (CLI, admin API) or a token registered.
 * - `clients.first_used_at`: when the client was first issued a token at /token; set once, by a
 *   write that only fills a NULL (store `mark_client_used`). NULL: never used.
 * - A partial index on the anonymous clients never used, by registration time: the purge finds
 *   those past their days without reading the clients that are used (most of them).
 */
import type { Migration } from "./migration.ts";

function sql(int: string, bool_false: string, is_anonymous: string): string {
  return `
ALTER TABLE clients ADD COLUMN anonymous ${bool_false};
ALTER TABLE clients ADD COLUMN first_used_at ${int};
CREATE INDEX clients_unused_anonymous ON clients (created_at) WHERE ${is_anonymous} AND first_used_at IS NULL;
`;
}

export const client_first_use: Migration = {
  version: 19,
  name: "client first use",
  sqlite: sql("INTEGER", "INTEGER NOT NULL DEFAULT 0", "anonymous = 1"),
  postgres: sql("BIGINT", "BOOLEAN NOT NULL DEFAULT FALSE", "anonymous"),
};
