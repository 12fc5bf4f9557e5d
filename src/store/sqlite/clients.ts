/** SQLite: registered clients. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { client_row, client_spec } from "../rows/clients.ts";
import type { ClientPatch, ClientRow, ClientStore } from "../types.ts";
import { insert_sql, limit_of, update_sql } from "./sql.ts";

export function sqlite_clients(db: SqliteDatabase): Sync<ClientStore> {
  const cols = columns(client_spec);
  const insert = db.prepare(insert_sql("clients", cols));
  const update = db.prepare(update_sql("clients", cols, ["client_id"]));
  const by_id = db.prepare("SELECT * FROM clients WHERE client_id = $client_id");
  const by_registration_token = db.prepare("SELECT * FROM clients WHERE registration_access_token_hash = $hash");
  const list = db.prepare("SELECT * FROM clients ORDER BY client_id LIMIT $limit OFFSET $offset");
  const remove = db.prepare("DELETE FROM clients WHERE client_id = $client_id");
  const mark_used = db.prepare("UPDATE clients SET first_used_at = $now WHERE client_id = $client_id AND first_used_at IS NULL");
  // Anonymous clients never used (delete_unused_clients); their grants and codes go with them (CASCADE).
  const unused = db.prepare("SELECT * FROM clients WHERE anonymous = 1 AND first_used_at IS NULL AND created_at <= $before ORDER BY created_at, client_id LIMIT $limit");
  const delete_unused_tx = db.transaction((before: number, limit: number): ClientRow[] => {
    const rows = unused.all({ before, limit }).map((raw) => decode(client_spec, raw));
    for (const row of rows) remove.run({ client_id: row.client_id });
    return rows;
  });
  const remove_at_version = db.prepare("DELETE FROM clients WHERE client_id = $client_id AND version = $version");
  const note_use = db.prepare(
    "UPDATE clients SET client_secret_used_at = CASE WHEN client_secret_hash = $hash THEN $at ELSE client_secret_used_at END, " +
      "previous_secret_used_at = CASE WHEN previous_secret_hash = $hash THEN $at ELSE previous_secret_used_at END WHERE client_id = $client_id",
  );

  const get = (client_id: string) => decode_or_null(client_spec, by_id.get({ client_id: client_id }));

  // Read, compare and write in one transaction, as for users (IfVersion).
  const update_tx = db.transaction((client_id: string, patch: ClientPatch, if_version: number | undefined): ClientRow | null => {
    const current = get(client_id);
    if (!current) return null;
    if (if_version !== undefined && current.version !== if_version) return null;
    const next: ClientRow = { ...current, ...pick_patch(client_spec, patch, ["client_id", "created_at", "version"]), version: current.version + 1 };
    if (patch.updated_at === undefined) next.updated_at = now_seconds();
    update.run(encode_sqlite(client_spec, next));
    return next;
  });

  return {
    create_client(input) {
      const row = client_row(input);
      insert.run(encode_sqlite(client_spec, row));
      return row;
    },
    get_client(client_id) {
      return get(client_id);
    },
    list_clients(options) {
      return list.all(limit_of(options)).map((raw) => decode(client_spec, raw));
    },
    update_client(client_id, patch, options) {
      return update_tx.immediate(client_id, patch, options?.if_version);
    },
    delete_client(client_id, options) {
      if (options?.if_version !== undefined) return remove_at_version.run({ client_id, version: options.if_version }).changes > 0;
      return remove.run({ client_id: client_id }).changes > 0;
    },
    get_client_by_registration_token_hash(token_hash) {
      return decode_or_null(client_spec, by_registration_token.get({ hash: token_hash }));
    },
    mark_client_used(client_id, now) {
      return mark_used.run({ client_id, now }).changes > 0;
    },
    delete_unused_clients(before, limit) {
      return delete_unused_tx.immediate(before, limit);
    },
    note_client_secret_use(client_id, secret_hash, at) {
      note_use.run({ client_id, hash: secret_hash, at });
    },
  };
}
