/** SQLite: resource servers (RFC 8707, RFC 9068). */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode_or_null, encode_sqlite } from "../codec.ts";
import { resource_server_row, resource_server_spec } from "../rows/resource_servers.ts";
import type { ResourceServerRow, ResourceServerStore } from "../types.ts";
import { insert_sql } from "./sql.ts";

export function sqlite_resource_servers(db: SqliteDatabase): Sync<ResourceServerStore> {
  const insert = db.prepare(insert_sql("resource_servers", columns(resource_server_spec)));
  const by_uri = db.prepare("SELECT * FROM resource_servers WHERE uri = $uri");
  const list = db.prepare("SELECT * FROM resource_servers ORDER BY uri");
  const remove = db.prepare("DELETE FROM resource_servers WHERE uri = $uri");
  return {
    create_resource_server(input) {
      const row = resource_server_row(input);
      insert.run(encode_sqlite(resource_server_spec, row));
      return row;
    },
    get_resource_server(uri) {
      return decode_or_null(resource_server_spec, by_uri.get({ uri }));
    },
    list_resource_servers() {
      return list.all().map((raw) => decode_or_null(resource_server_spec, raw) as ResourceServerRow);
    },
    delete_resource_server(uri) {
      return remove.run({ uri }).changes > 0;
    },
  };
}
