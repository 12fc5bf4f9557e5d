/** PostgreSQL: browser sessions, pending interactions and consent grants. */
import type { SQL } from "bun";
import { decode, decodeOrNull, encodePostgres, grantSpec, interactionSpec, pickPatch, sessionSpec } from "../codec.ts";
import { interactionRow, mergeScopes, nowSeconds, sessionRow } from "../defaults.ts";
import type { GrantStore, InteractionStore, SessionStore } from "../types.ts";

export function pgSessions(sql: SQL): SessionStore {
  return {
    async createSession(input) {
      const row = sessionRow(input);
      await sql`INSERT INTO sessions ${sql(encodePostgres(sessionSpec, row))}`;
      return row;
    },
    async getSession(idHash) {
      const [raw] = await sql`SELECT * FROM sessions WHERE id_hash = ${idHash}`;
      return decodeOrNull(sessionSpec, raw);
    },
    async listSessionsForUser(userId) {
      const rows: unknown[] = await sql`SELECT * FROM sessions WHERE user_id = ${userId} ORDER BY created_at, id_hash`;
      return rows.map((raw) => decode(sessionSpec, raw));
    },
    async touchSession(idHash, lastSeenAt, expiresAt) {
      const result = await sql`
        UPDATE sessions SET last_seen_at = ${lastSeenAt}, expires_at = COALESCE(${expiresAt ?? null}::bigint, expires_at)
        WHERE id_hash = ${idHash}`;
      return result.count > 0;
    },
    async deleteSession(idHash) {
      const result = await sql`DELETE FROM sessions WHERE id_hash = ${idHash}`;
      return result.count > 0;
    },
    async deleteSessionsForUser(userId) {
      const result = await sql`DELETE FROM sessions WHERE user_id = ${userId}`;
      return result.count;
    },
    async addSessionClient(sessionIdHash, clientId, now) {
      // Through the session row: no row for a session that is gone (and no foreign-key error).
      await sql`
        INSERT INTO session_clients (session_id_hash, client_id, created_at)
        SELECT id_hash, ${clientId}, ${now ?? nowSeconds()} FROM sessions WHERE id_hash = ${sessionIdHash}
        ON CONFLICT (session_id_hash, client_id) DO NOTHING`;
    },
    async listSessionClients(sessionIdHash) {
      const rows: { client_id: string }[] = await sql`
        SELECT client_id FROM session_clients WHERE session_id_hash = ${sessionIdHash} ORDER BY client_id`;
      return rows.map((row) => row.client_id);
    },
  };
}

export function pgInteractions(sql: SQL): InteractionStore {
  const get = async (id: string) => {
    const [raw] = await sql`SELECT * FROM interactions WHERE id = ${id}`;
    return decodeOrNull(interactionSpec, raw);
  };
  return {
    async createInteraction(input) {
      const row = interactionRow(input);
      await sql`INSERT INTO interactions ${sql(encodePostgres(interactionSpec, row))}`;
      return row;
    },
    getInteraction: get,
    async updateInteraction(id, patch) {
      const changes = encodePostgres(interactionSpec, pickPatch(interactionSpec, patch, ["id", "created_at"]));
      if (Object.keys(changes).length === 0) return get(id);
      const [raw] = await sql`UPDATE interactions SET ${sql(changes)} WHERE id = ${id} RETURNING *`;
      return decodeOrNull(interactionSpec, raw);
    },
    async deleteInteraction(id) {
      const result = await sql`DELETE FROM interactions WHERE id = ${id}`;
      return result.count > 0;
    },
  };
}

export function pgGrants(sql: SQL): GrantStore {
  return {
    async upsertGrant(input) {
      const now = input.now ?? nowSeconds();
      const keepClaims = input.claims === undefined;
      // One statement, so concurrent upserts cannot lose each other's scopes: the union keeps
      // the first position of every scope (existing ones first).
      const [raw] = await sql`
        INSERT INTO grants (user_id, client_id, scopes, claims, created_at, updated_at)
        VALUES (${input.user_id}, ${input.client_id}, ${mergeScopes([], input.scopes)}, ${input.claims ?? null}, ${now}, ${now})
        ON CONFLICT (user_id, client_id) DO UPDATE SET
          scopes = (
            SELECT coalesce(jsonb_agg(s ORDER BY o), '[]'::jsonb)
            FROM (SELECT s, min(o) AS o FROM jsonb_array_elements_text(grants.scopes || EXCLUDED.scopes) WITH ORDINALITY AS t(s, o) GROUP BY s) AS u
          ),
          claims = CASE WHEN ${keepClaims}::boolean THEN grants.claims ELSE EXCLUDED.claims END,
          updated_at = EXCLUDED.updated_at
        RETURNING *`;
      return decode(grantSpec, raw);
    },
    async getGrant(userId, clientId) {
      const [raw] = await sql`SELECT * FROM grants WHERE user_id = ${userId} AND client_id = ${clientId}`;
      return decodeOrNull(grantSpec, raw);
    },
    async listGrantsForUser(userId) {
      const rows: unknown[] = await sql`SELECT * FROM grants WHERE user_id = ${userId} ORDER BY client_id`;
      return rows.map((raw) => decode(grantSpec, raw));
    },
    async deleteGrant(userId, clientId) {
      const result = await sql`DELETE FROM grants WHERE user_id = ${userId} AND client_id = ${clientId}`;
      return result.count > 0;
    },
  };
}
