/** PostgreSQL: resource servers (RFC 8707, RFC 9068). */
import type { PgSql } from "./driver.ts";
import { decode_or_null, encode_postgres } from "../codec.ts";
import { resource_server_row, resource_server_spec } from "../rows/resource_servers.ts";
import type { ResourceServerRow, ResourceServerStore } from "../types.ts";

export function pg_resource_servers(sql: PgSql): ResourceServerStore {
  return {
    async create_resource_server(input) {
      const row = resource_server_row(input);
      await sql`INSERT INTO resource_servers ${sql(encode_postgres(resource_server_spec, row))}`;
      return row;
    },
    async get_resource_server(uri) {
      const [raw] = await sql`SELECT * FROM resource_servers WHERE uri = ${uri}`;
      return decode_or_null(resource_server_spec, raw);
    },
    async list_resource_servers() {
      const rows: unknown[] = await sql`SELECT * FROM resource_servers ORDER BY uri`;
      return rows.map((raw) => decode_or_null(resource_server_spec, raw) as ResourceServerRow);
    },
    async delete_resource_server(uri) {
      const result = await sql`DELETE FROM resource_servers WHERE uri = ${uri}`;
      return result.count > 0;
    },
  };
}
