/** SQLite: pushed authorization requests (RFC 9126), consumed once. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode_or_null, encode_sqlite } from "../codec.ts";
import { pushed_request_row, pushed_request_spec } from "../rows/pushed_requests.ts";
import type { PushedRequestStore } from "../types.ts";
import { insert_sql } from "./sql.ts";

export function sqlite_pushed_requests(db: SqliteDatabase): Sync<PushedRequestStore> {
  const insert = db.prepare(insert_sql("pushed_requests", columns(pushed_request_spec)));
  // Single use in one statement: of two concurrent redemptions only one gets the row back.
  const consume = db.prepare("DELETE FROM pushed_requests WHERE request_uri_hash = $request_uri_hash AND client_id = $client_id AND expires_at > $now RETURNING *");
  return {
    insert_pushed_request(input) {
      insert.run(encode_sqlite(pushed_request_spec, pushed_request_row(input)));
    },
    consume_pushed_request(request_uri_hash, client_id, now) {
      return decode_or_null(pushed_request_spec, consume.get({ request_uri_hash, client_id, now }));
    },
  };
}
