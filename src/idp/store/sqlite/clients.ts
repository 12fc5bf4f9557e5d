/** SQLite: registered clients. */
import type { Database } from "bun:sqlite";
import { clientSpec, columns, decode, decodeOrNull, encodeSqlite, pickPatch } from "../codec.ts";
import { clientRow, nowSeconds } from "../defaults.ts";
import type { ClientPatch, ClientRow, ClientStore } from "../types.ts";
import { insertSql, limitOf, updateSql } from "./sql.ts";

export function sqliteClients(db: Database): ClientStore {
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
    async createClient(input) {
      const row = clientRow(input);
      insert.run(encodeSqlite(clientSpec, row));
      return row;
    },
    async getClient(clientId) {
      return get(clientId);
    },
    async listClients(options) {
      return list.all(limitOf(options)).map((raw) => decode(clientSpec, raw));
    },
    async updateClient(clientId, patch) {
      return updateTx.immediate(clientId, patch);
    },
    async deleteClient(clientId) {
      return remove.run({ client_id: clientId }).changes > 0;
    },
    async getClientByRegistrationTokenHash(tokenHash) {
      return decodeOrNull(clientSpec, byRegistrationToken.get({ hash: tokenHash }));
    },
  };
}
