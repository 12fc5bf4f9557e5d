/**
 * Version 2: which clients each browser session signed in to. OIDC Back-Channel Logout 1.0 §2.7
 * ("the OP needs to keep track of the set of logged-in RPs"): at logout the provider sends a
 * logout token to each of them. Codes and tokens also carry the session, but they are purged
 * long before a session ends; these rows live exactly as long as the session (and the client).
 */
import type { Migration } from "./migration.ts";

function schema(int: string, strict: string): string {
  return `
CREATE TABLE session_clients (
  session_id_hash TEXT NOT NULL REFERENCES sessions(id_hash) ON DELETE CASCADE,
  client_id TEXT NOT NULL REFERENCES clients(client_id) ON DELETE CASCADE,
  created_at ${int} NOT NULL,
  PRIMARY KEY (session_id_hash, client_id)
)${strict};
CREATE INDEX session_clients_client_id ON session_clients (client_id);
`;
}

export const session_clients: Migration = {
  version: 2,
  name: "session_clients",
  sqlite: schema("INTEGER", " STRICT"),
  postgres: schema("BIGINT", ""),
};
