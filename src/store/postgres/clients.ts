/** PostgreSQL: registered clients. */
import type { SQL } from "bun";
import { clientSpec, decode, decodeOrNull, encodePostgres, pickPatch } from "../codec.ts";
import { clientRow, nowSeconds } from "../defaults.ts";
import type { ClientStore } from "../types.ts";

export function pgClients(sql: SQL): ClientStore {
  return {
    async createClient(input) {
      const row = clientRow(input);
      await sql`INSERT INTO clients ${sql(encodePostgres(clientSpec, row))}`;
      return row;
    },
    async getClient(clientId) {
      const [raw] = await sql`SELECT * FROM clients WHERE client_id = ${clientId}`;
      return decodeOrNull(clientSpec, raw);
    },
    async listClients(options) {
      const rows: unknown[] = await sql`SELECT * FROM clients ORDER BY client_id LIMIT ${options?.limit ?? null} OFFSET ${options?.offset ?? 0}`;
      return rows.map((raw) => decode(clientSpec, raw));
    },
    async updateClient(clientId, patch) {
      const changes: Record<string, unknown> = encodePostgres(clientSpec, pickPatch(clientSpec, patch, ["client_id", "created_at"]));
      changes.updated_at ??= nowSeconds();
      const [raw] = await sql`UPDATE clients SET ${sql(changes)} WHERE client_id = ${clientId} RETURNING *`;
      return decodeOrNull(clientSpec, raw);
    },
    async deleteClient(clientId) {
      const result = await sql`DELETE FROM clients WHERE client_id = ${clientId}`;
      return result.count > 0;
    },
    async getClientByRegistrationTokenHash(tokenHash) {
      const [raw] = await sql`SELECT * FROM clients WHERE registration_access_token_hash = ${tokenHash}`;
      return decodeOrNull(clientSpec, raw);
    },
  };
}
