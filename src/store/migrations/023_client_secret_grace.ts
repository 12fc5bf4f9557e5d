/**
 * Version 23: a client's secret with its dates, and the secret a rotation replaced
 * (oidc/admin/clients.ts `rotate_client_secret` with a grace period):
 *
 * - `client_secret_created_at`, `client_secret_used_at`: when the current secret was made and
 *   when it last authenticated the client (recorded at most once a minute; NULL: unknown, never);
 * - `previous_secret_hash`, `previous_secret_expires_at`: the SHA-256 of the replaced secret and
 *   until when it still authenticates the client (oidc/clients/authentication.ts), with its own
 *   `previous_secret_created_at` and `previous_secret_used_at`. All NULL when there is none.
 *
 * Secrets made before this version have no creation date: the console shows it as unknown.
 */
import type { Migration } from "./migration.ts";

function sql(int: string): string {
  return `
ALTER TABLE clients ADD COLUMN client_secret_created_at ${int};
ALTER TABLE clients ADD COLUMN client_secret_used_at ${int};
ALTER TABLE clients ADD COLUMN previous_secret_hash TEXT;
ALTER TABLE clients ADD COLUMN previous_secret_expires_at ${int};
ALTER TABLE clients ADD COLUMN previous_secret_created_at ${int};
ALTER TABLE clients ADD COLUMN previous_secret_used_at ${int};
`;
}

export const client_secret_grace: Migration = {
  version: 23,
  name: "client secret grace",
  sqlite: sql("INTEGER"),
  postgres: sql("BIGINT"),
};
