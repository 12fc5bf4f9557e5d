/** SQLite: registered clients. */
import type { Database } from "bun:sqlite";
import type { Sync } from "./group-commit.ts";
import { clientSpec, columns, decode, decodeOrNull, encodeSqlite, pickPatch } from "../codec.ts";
import { clientRow, nowSeconds } from "../defaults.ts";
import type { ClientPatch, ClientRow, ClientStore } from "../types.ts";
import { insertSql, limitOf, updateSql } from "./sql.ts";

export function sqliteClients(db: Database): Sync<ClientStore> {
  const cols = columns(clientSpec);
  const insert = db.prepare(insertSql("clients", cols));
  const update = db.prepare(updateSql("clients", cols, ["client_id"]));
  const byId = db.prepare("SELECT * FROM clients WHERE client_id = $client_id");
  const byRegistrationToken = db.prepare("SELECT * FROM clients WHERE registration_access_token_hash = $hash");
  const list = db.prepare("SELECT * FROM clients ORDER BY client_id LIMIT $limit OFFSET $offset");
  const remove = db.prepare("DELETE FROM clients WHERE client_id = $client_id");

  const get = (clientId: string) => decodeOrNull(clientSpec, byId.get({ client_id: clientId }));

  const updateTx = db.transaction((clientId: string, patch: ClientPatch): ClientRow | null => {
    const current = get(clientId);
    if (!current) return null;
    const next: ClientRow = { ...current, ...pickPatch(clientSpec, patch, ["client_id", "created_at"]) };
    if (patch.updated_at === undefined) next.updated_at = nowSeconds();
    update.run(encodeSqlite(clientSpec, next));
    return next;
  });

  return {
    createClient(input) {
      const row = clientRow(input);
      insert.run(encodeSqlite(clientSpec, row));
      return row;
    },
    getClient(clientId) {
      return get(clientId);
    },
    listClients(options) {
      return list.all(limitOf(options)).map((raw) => decode(clientSpec, raw));
    },
    updateClient(clientId, patch) {
      return updateTx.immediate(clientId, patch);
    },
    deleteClient(clientId) {
      return remove.run({ client_id: clientId }).changes > 0;
    },
    getClientByRegistrationTokenHash(tokenHash) {
      return decodeOrNull(clientSpec, byRegistrationToken.get({ hash: tokenHash }));
    },
  };
}
