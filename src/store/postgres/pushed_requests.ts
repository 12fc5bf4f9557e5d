/** PostgreSQL: pushed authorization requests (RFC 9126), consumed once. */
import type { PgSql } from "./driver.ts";
import { decode_or_null, encode_postgres } from "../codec.ts";
import { pushed_request_row, pushed_request_spec } from "../rows/pushed_requests.ts";
import type { PushedRequestStore } from "../types.ts";

export function pg_pushed_requests(sql: PgSql): PushedRequestStore {
  return {
    async insert_pushed_request(input) {
      const values = encode_postgres(pushed_request_spec, pushed_request_row(input));
      await sql`INSERT INTO pushed_requests ${sql(values)}`;
    },
    async consume_pushed_request(request_uri_hash, client_id, now) {
      // Single use in one statement: a concurrent DELETE of the same row waits for this one and
      // then finds nothing (READ COMMITTED).
      const [raw] = await sql`
        DELETE FROM pushed_requests WHERE request_uri_hash = ${request_uri_hash} AND client_id = ${client_id} AND expires_at > ${now}
        RETURNING *`;
      return decode_or_null(pushed_request_spec, raw);
    },
  };
}
