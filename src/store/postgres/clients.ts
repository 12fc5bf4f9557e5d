/** PostgreSQL: registered clients. */
import type { SQL } from "bun";
import { decode, decode_or_null, encode_postgres, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { client_row, client_spec } from "../rows/clients.ts";
import type { ClientStore } from "../types.ts";

export function pg_clients(sql: SQL): ClientStore {
  return {
    async create_client(input) {
      const row = client_row(input);
      await sql`INSERT INTO clients ${sql(encode_postgres(client_spec, row))}`;
      return row;
    },
    async get_client(client_id) {
      const [raw] = await sql`SELECT * FROM clients WHERE client_id = ${client_id}`;
      return decode_or_null(client_spec, raw);
    },
    async list_clients(options) {
      const rows: unknown[] = await sql`SELECT * FROM clients ORDER BY client_id LIMIT ${options?.limit ?? null} OFFSET ${options?.offset ?? 0}`;
      return rows.map((raw) => decode(client_spec, raw));
    },
    async update_client(client_id, patch) {
      const changes: Record<string, unknown> = encode_postgres(client_spec, pick_patch(client_spec, patch, ["client_id", "created_at"]));
      changes.updated_at ??= now_seconds();
      const [raw] = await sql`UPDATE clients SET ${sql(changes)} WHERE client_id = ${client_id} RETURNING *`;
      return decode_or_null(client_spec, raw);
    },
    async delete_client(client_id) {
      const result = await sql`DELETE FROM clients WHERE client_id = ${client_id}`;
      return result.count > 0;
    },
    async get_client_by_registration_token_hash(token_hash) {
      const [raw] = await sql`SELECT * FROM clients WHERE registration_access_token_hash = ${token_hash}`;
      return decode_or_null(client_spec, raw);
    },
    async note_client_secret_use(client_id, secret_hash, at) {
      await sql`UPDATE clients SET
        client_secret_used_at = CASE WHEN client_secret_hash = ${secret_hash} THEN ${at} ELSE client_secret_used_at END,
        previous_secret_used_at = CASE WHEN previous_secret_hash = ${secret_hash} THEN ${at} ELSE previous_secret_used_at END
        WHERE client_id = ${client_id}`;
    },
  };
}
