/** SQLite: registered clients. */
import type { Database } from "bun:sqlite";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { client_row, client_spec } from "../rows/clients.ts";
import type { ClientPatch, ClientRow, ClientStore } from "../types.ts";
import { insert_sql, limit_of, update_sql } from "./sql.ts";

export function sqlite_clients(db: Database): Sync<ClientStore> {
  const cols = columns(client_spec);
  const insert = db.prepare(insert_sql("clients", cols));
  const update = db.prepare(update_sql("clients", cols, ["client_id"]));
  const by_id = db.prepare("SELECT * FROM clients WHERE client_id = $client_id");
  const by_registration_token = db.prepare("SELECT * FROM clients WHERE registration_access_token_hash = $hash");
  const list = db.prepare("SELECT * FROM clients ORDER BY client_id LIMIT $limit OFFSET $offset");
  const remove = db.prepare("DELETE FROM clients WHERE client_id = $client_id");
  const note_use = db.prepare(
    "UPDATE clients SET client_secret_used_at = CASE WHEN client_secret_hash = $hash THEN $at ELSE client_secret_used_at END, " +
      "previous_secret_used_at = CASE WHEN previous_secret_hash = $hash THEN $at ELSE previous_secret_used_at END WHERE client_id = $client_id",
  );

  const get = (client_id: string) => decode_or_null(client_spec, by_id.get({ client_id: client_id }));

  const update_tx = db.transaction((client_id: string, patch: ClientPatch): ClientRow | null => {
    const current = get(client_id);
    if (!current) return null;
    const next: ClientRow = { ...current, ...pick_patch(client_spec, patch, ["client_id", "created_at"]) };
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
    update_client(client_id, patch) {
      return update_tx.immediate(client_id, patch);
    },
    delete_client(client_id) {
      return remove.run({ client_id: client_id }).changes > 0;
    },
    get_client_by_registration_token_hash(token_hash) {
      return decode_or_null(client_spec, by_registration_token.get({ hash: token_hash }));
    },
    note_client_secret_use(client_id, secret_hash, at) {
      note_use.run({ client_id, hash: secret_hash, at });
    },
  };
}
