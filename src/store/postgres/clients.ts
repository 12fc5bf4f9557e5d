/** PostgreSQL: registered clients. */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { client_row, client_spec } from "../rows/clients.ts";
import type { ClientStore } from "../types.ts";

export function pg_clients(sql: PgSql): ClientStore {
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
    async update_client(client_id, patch, options) {
      const changes: Record<string, unknown> = encode_postgres(client_spec, pick_patch(client_spec, patch, ["client_id", "created_at", "version"]));
      changes.updated_at ??= now_seconds();
      // IfVersion in the UPDATE itself, as for users.
      const [raw] =
        options?.if_version === undefined
          ? await sql`UPDATE clients SET ${sql(changes)}, version = version + 1 WHERE client_id = ${client_id} RETURNING *`
          : await sql`UPDATE clients SET ${sql(changes)}, version = version + 1 WHERE client_id = ${client_id} AND version = ${options.if_version} RETURNING *`;
      return decode_or_null(client_spec, raw);
    },
    async delete_client(client_id, options) {
      const result =
        options?.if_version === undefined
          ? await sql`DELETE FROM clients WHERE client_id = ${client_id}`
          : await sql`DELETE FROM clients WHERE client_id = ${client_id} AND version = ${options.if_version}`;
      return result.count > 0;
    },
    async get_client_by_registration_token_hash(token_hash) {
      const [raw] = await sql`SELECT * FROM clients WHERE registration_access_token_hash = ${token_hash}`;
      return decode_or_null(client_spec, raw);
    },
    async mark_client_used(client_id, now) {
      const result = await sql`UPDATE clients SET first_used_at = ${now} WHERE client_id = ${client_id} AND first_used_at IS NULL`;
      return result.count > 0;
    },
    async delete_unused_clients(before, limit) {
      // Anonymous clients never used; their grants and codes go with them (CASCADE). SKIP LOCKED:
      // instances purging together take different rows.
      const rows: unknown[] = await sql`
        DELETE FROM clients WHERE client_id IN (
          SELECT client_id FROM clients WHERE anonymous AND first_used_at IS NULL AND created_at <= ${before}
          ORDER BY created_at, client_id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING *`;
      return rows.map((raw) => decode(client_spec, raw)).sort((a, b) => a.created_at - b.created_at || (a.client_id < b.client_id ? -1 : 1));
    },
    async note_client_secret_use(client_id, secret_hash, at) {
      await sql`UPDATE clients SET
        client_secret_used_at = CASE WHEN client_secret_hash = ${secret_hash} THEN ${at} ELSE client_secret_used_at END,
        previous_secret_used_at = CASE WHEN previous_secret_hash = ${secret_hash} THEN ${at} ELSE previous_secret_used_at END
        WHERE client_id = ${client_id}`;
    },
  };
}
