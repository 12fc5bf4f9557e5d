/** SQLite: browser sessions, pending interactions and consent grants. */
import type { Database } from "bun:sqlite";
import type { Sync } from "./group-commit.ts";
import { columns, decode, decodeOrNull, encodeSqlite, grantSpec, interactionSpec, pickPatch, sessionSpec } from "../codec.ts";
import { grantRow, interactionRow, nowSeconds, sessionRow } from "../defaults.ts";
import type { GrantStore, GrantUpsert, InteractionPatch, InteractionRow, InteractionStore, SessionStore } from "../types.ts";
import { insertSql, updateSql } from "./sql.ts";

export function sqliteSessions(db: Database): Sync<SessionStore> {
  const insert = db.prepare(insertSql("sessions", columns(sessionSpec)));
  const byId = db.prepare("SELECT * FROM sessions WHERE id_hash = $id_hash");
  const byUser = db.prepare("SELECT * FROM sessions WHERE user_id = $user_id ORDER BY created_at, id_hash");
  const touch = db.prepare(
    "UPDATE sessions SET last_seen_at = $last_seen_at, expires_at = COALESCE($expires_at, expires_at) WHERE id_hash = $id_hash",
  );
  const remove = db.prepare("DELETE FROM sessions WHERE id_hash = $id_hash");
  const removeForUser = db.prepare("DELETE FROM sessions WHERE user_id = $user_id");
  // Through the session row: no row for a session that is gone (and no foreign-key error).
  const addClient = db.prepare(
    `INSERT INTO session_clients (session_id_hash, client_id, created_at)
     SELECT id_hash, $client_id, $now FROM sessions WHERE id_hash = $session_id_hash
     ON CONFLICT (session_id_hash, client_id) DO NOTHING`,
  );
  const clients = db.prepare("SELECT client_id FROM session_clients WHERE session_id_hash = $session_id_hash ORDER BY client_id");

  return {
    createSession(input) {
      const row = sessionRow(input);
      insert.run(encodeSqlite(sessionSpec, row));
      return row;
    },
    getSession(idHash) {
      return decodeOrNull(sessionSpec, byId.get({ id_hash: idHash }));
    },
    listSessionsForUser(userId) {
      return byUser.all({ user_id: userId }).map((raw) => decode(sessionSpec, raw));
    },
    touchSession(idHash, lastSeenAt, expiresAt) {
      return touch.run({ id_hash: idHash, last_seen_at: lastSeenAt, expires_at: expiresAt ?? null }).changes > 0;
    },
    deleteSession(idHash) {
      return remove.run({ id_hash: idHash }).changes > 0;
    },
    deleteSessionsForUser(userId) {
      return removeForUser.run({ user_id: userId }).changes;
    },
    addSessionClient(sessionIdHash, clientId, now) {
      addClient.run({ session_id_hash: sessionIdHash, client_id: clientId, now: now ?? nowSeconds() });
    },
    listSessionClients(sessionIdHash) {
      return (clients.all({ session_id_hash: sessionIdHash }) as { client_id: string }[]).map((row) => row.client_id);
    },
  };
}

export function sqliteInteractions(db: Database): Sync<InteractionStore> {
  const cols = columns(interactionSpec);
  const insert = db.prepare(insertSql("interactions", cols));
  const update = db.prepare(updateSql("interactions", cols, ["id"]));
  const byId = db.prepare("SELECT * FROM interactions WHERE id = $id");
  const remove = db.prepare("DELETE FROM interactions WHERE id = $id");

  const get = (id: string) => decodeOrNull(interactionSpec, byId.get({ id }));
  const updateTx = db.transaction((id: string, patch: InteractionPatch): InteractionRow | null => {
    const current = get(id);
    if (!current) return null;
    const next: InteractionRow = { ...current, ...pickPatch(interactionSpec, patch, ["id", "created_at"]) };
    update.run(encodeSqlite(interactionSpec, next));
    return next;
  });

  return {
    createInteraction(input) {
      const row = interactionRow(input);
      insert.run(encodeSqlite(interactionSpec, row));
      return row;
    },
    getInteraction(id) {
      return get(id);
    },
    updateInteraction(id, patch) {
      return updateTx.immediate(id, patch);
    },
    deleteInteraction(id) {
      return remove.run({ id }).changes > 0;
    },
  };
}

export function sqliteGrants(db: Database): Sync<GrantStore> {
  const cols = columns(grantSpec);
  const upsert = db.prepare(
    `${insertSql("grants", cols)} ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, claims = excluded.claims, updated_at = excluded.updated_at`,
  );
  const byKey = db.prepare("SELECT * FROM grants WHERE user_id = $user_id AND client_id = $client_id");
  const byUser = db.prepare("SELECT * FROM grants WHERE user_id = $user_id ORDER BY client_id");
  const remove = db.prepare("DELETE FROM grants WHERE user_id = $user_id AND client_id = $client_id");

  const get = (userId: string, clientId: string) => decodeOrNull(grantSpec, byKey.get({ user_id: userId, client_id: clientId }));
  // Read-merge-write inside an IMMEDIATE transaction: another process cannot slip in between.
  const upsertTx = db.transaction((input: GrantUpsert) => {
    const row = grantRow(get(input.user_id, input.client_id), input);
    upsert.run(encodeSqlite(grantSpec, row));
    return row;
  });

  return {
    upsertGrant(input) {
      return upsertTx.immediate(input);
    },
    getGrant(userId, clientId) {
      return get(userId, clientId);
    },
    listGrantsForUser(userId) {
      return byUser.all({ user_id: userId }).map((raw) => decode(grantSpec, raw));
    },
    deleteGrant(userId, clientId) {
      return remove.run({ user_id: userId, client_id: clientId }).changes > 0;
    },
  };
}
