/** SQLite: browser sessions, pending interactions and consent grants. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { grant_row, grant_spec } from "../rows/grants.ts";
import { interaction_row, interaction_spec } from "../rows/interactions.ts";
import { session_row, session_spec } from "../rows/sessions.ts";
import type { GrantStore, GrantUpsert, InteractionPatch, InteractionRow, InteractionStore, SessionStore } from "../types.ts";
import { insert_sql, update_sql } from "./sql.ts";

export function sqlite_sessions(db: SqliteDatabase): Sync<SessionStore> {
  const insert = db.prepare(insert_sql("sessions", columns(session_spec)));
  const by_id = db.prepare("SELECT * FROM sessions WHERE id_hash = $id_hash");
  const by_user = db.prepare("SELECT * FROM sessions WHERE user_id = $user_id ORDER BY created_at, id_hash");
  const touch = db.prepare("UPDATE sessions SET last_seen_at = $last_seen_at, expires_at = COALESCE($expires_at, expires_at) WHERE id_hash = $id_hash");
  const remove = db.prepare("DELETE FROM sessions WHERE id_hash = $id_hash");
  const remove_for_user = db.prepare("DELETE FROM sessions WHERE user_id = $user_id");
  // Through the session row: no row for a session that is gone (and no foreign-key error).
  const add_client = db.prepare(
    `INSERT INTO session_clients (session_id_hash, client_id, created_at)
     SELECT id_hash, $client_id, $now FROM sessions WHERE id_hash = $session_id_hash
     ON CONFLICT (session_id_hash, client_id) DO NOTHING`,
  );
  const clients = db.prepare("SELECT client_id FROM session_clients WHERE session_id_hash = $session_id_hash ORDER BY client_id");

  return {
    create_session(input) {
      const row = session_row(input);
      insert.run(encode_sqlite(session_spec, row));
      return row;
    },
    get_session(id_hash) {
      return decode_or_null(session_spec, by_id.get({ id_hash: id_hash }));
    },
    list_sessions_for_user(user_id) {
      return by_user.all({ user_id: user_id }).map((raw) => decode(session_spec, raw));
    },
    touch_session(id_hash, last_seen_at, expires_at) {
      return touch.run({ id_hash: id_hash, last_seen_at: last_seen_at, expires_at: expires_at ?? null }).changes > 0;
    },
    delete_session(id_hash) {
      return remove.run({ id_hash: id_hash }).changes > 0;
    },
    delete_sessions_for_user(user_id) {
      return remove_for_user.run({ user_id: user_id }).changes;
    },
    add_session_client(session_id_hash, client_id, now) {
      add_client.run({ session_id_hash: session_id_hash, client_id: client_id, now: now ?? now_seconds() });
    },
    list_session_clients(session_id_hash) {
      return (clients.all({ session_id_hash: session_id_hash }) as { client_id: string }[]).map((row) => row.client_id);
    },
  };
}

export function sqlite_interactions(db: SqliteDatabase): Sync<InteractionStore> {
  const cols = columns(interaction_spec);
  const insert = db.prepare(insert_sql("interactions", cols));
  const update = db.prepare(update_sql("interactions", cols, ["id"]));
  const by_id = db.prepare("SELECT * FROM interactions WHERE id = $id");
  const remove = db.prepare("DELETE FROM interactions WHERE id = $id");

  const get = (id: string) => decode_or_null(interaction_spec, by_id.get({ id }));
  const update_tx = db.transaction((id: string, patch: InteractionPatch): InteractionRow | null => {
    const current = get(id);
    if (!current) return null;
    const next: InteractionRow = { ...current, ...pick_patch(interaction_spec, patch, ["id", "created_at"]) };
    update.run(encode_sqlite(interaction_spec, next));
    return next;
  });

  return {
    create_interaction(input) {
      const row = interaction_row(input);
      insert.run(encode_sqlite(interaction_spec, row));
      return row;
    },
    get_interaction(id) {
      return get(id);
    },
    update_interaction(id, patch) {
      return update_tx.immediate(id, patch);
    },
    delete_interaction(id) {
      return remove.run({ id }).changes > 0;
    },
  };
}

export function sqlite_grants(db: SqliteDatabase): Sync<GrantStore> {
  const cols = columns(grant_spec);
  const upsert = db.prepare(
    `${insert_sql("grants", cols)} ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, claims = excluded.claims, updated_at = excluded.updated_at`,
  );
  const by_key = db.prepare("SELECT * FROM grants WHERE user_id = $user_id AND client_id = $client_id");
  const by_user = db.prepare("SELECT * FROM grants WHERE user_id = $user_id ORDER BY client_id");
  const remove = db.prepare("DELETE FROM grants WHERE user_id = $user_id AND client_id = $client_id");

  const get = (user_id: string, client_id: string) => decode_or_null(grant_spec, by_key.get({ user_id: user_id, client_id: client_id }));
  // Read-merge-write inside an IMMEDIATE transaction: another process cannot slip in between.
  const upsert_tx = db.transaction((input: GrantUpsert) => {
    const row = grant_row(get(input.user_id, input.client_id), input);
    upsert.run(encode_sqlite(grant_spec, row));
    return row;
  });

  return {
    upsert_grant(input) {
      return upsert_tx.immediate(input);
    },
    get_grant(user_id, client_id) {
      return get(user_id, client_id);
    },
    list_grants_for_user(user_id) {
      return by_user.all({ user_id: user_id }).map((raw) => decode(grant_spec, raw));
    },
    delete_grant(user_id, client_id) {
      return remove.run({ user_id: user_id, client_id: client_id }).changes > 0;
    },
  };
}
