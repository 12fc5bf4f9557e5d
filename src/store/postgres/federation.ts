/** PostgreSQL: upstream identity providers, linked upstream accounts, pending upstream sign-ins. */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { federated_identity_row, federated_identity_spec, upstream_row, upstream_spec, upstream_state_spec } from "../rows/federation.ts";
import type { FederationStore } from "../types.ts";

export function pg_federation(sql: PgSql): FederationStore {
  return {
    async create_upstream(input) {
      const row = upstream_row(input);
      await sql`INSERT INTO upstreams ${sql(encode_postgres(upstream_spec, row))}`;
      return row;
    },
    async get_upstream(name) {
      const [raw] = await sql`SELECT * FROM upstreams WHERE name = ${name}`;
      return decode_or_null(upstream_spec, raw);
    },
    async list_upstreams() {
      const rows: unknown[] = await sql`SELECT * FROM upstreams ORDER BY name`;
      return rows.map((raw) => decode(upstream_spec, raw));
    },
    async update_upstream(name, patch, options) {
      const changes = encode_postgres(upstream_spec, { ...pick_patch(upstream_spec, patch, ["name", "created_at", "version"]), updated_at: patch.updated_at ?? now_seconds() });
      // IfVersion in the UPDATE itself, as for users.
      const [raw] =
        options?.if_version === undefined
          ? await sql`UPDATE upstreams SET ${sql(changes)}, version = version + 1 WHERE name = ${name} RETURNING *`
          : await sql`UPDATE upstreams SET ${sql(changes)}, version = version + 1 WHERE name = ${name} AND version = ${options.if_version} RETURNING *`;
      return decode_or_null(upstream_spec, raw);
    },
    async delete_upstream(name, options) {
      return sql.begin(async (tx) => {
        // With if_version the upstream goes first (its row lock held to the end): when it changed (IfVersion), its links stay.
        if (options?.if_version !== undefined) {
          const removed = await tx`DELETE FROM upstreams WHERE name = ${name} AND version = ${options.if_version}`;
          if (removed.count === 0) return false;
        }
        await tx`DELETE FROM federated_identities WHERE upstream = ${name}`;
        if (options?.if_version !== undefined) return true;
        const result = await tx`DELETE FROM upstreams WHERE name = ${name}`;
        return result.count > 0;
      });
    },
    async link_identity(input) {
      const row = federated_identity_row(input);
      await sql`INSERT INTO federated_identities ${sql(encode_postgres(federated_identity_spec, row))}`;
      return row;
    },
    async get_identity(upstream, subject) {
      const [raw] = await sql`SELECT * FROM federated_identities WHERE upstream = ${upstream} AND subject = ${subject}`;
      return decode_or_null(federated_identity_spec, raw);
    },
    async list_identities_for_user(user_id) {
      const rows: unknown[] = await sql`SELECT * FROM federated_identities WHERE user_id = ${user_id} ORDER BY created_at, upstream, subject`;
      return rows.map((raw) => decode(federated_identity_spec, raw));
    },
    async unlink_identity(user_id, upstream, subject) {
      const result = await sql`DELETE FROM federated_identities WHERE user_id = ${user_id} AND upstream = ${upstream} AND subject = ${subject}`;
      return result.count > 0;
    },
    async touch_identity(upstream, subject, now) {
      await sql`UPDATE federated_identities SET last_used_at = ${now} WHERE upstream = ${upstream} AND subject = ${subject}`;
    },
    async count_stale_identities(upstream, current) {
      const [row] = await sql`
        SELECT count(*) AS n FROM federated_identities
        WHERE upstream = ${upstream} AND (issuer <> ${current.issuer} OR subject_claim <> ${current.subject_claim})`;
      return Number(row?.n ?? 0);
    },
    async delete_stale_identities(upstream, current) {
      const result = await sql`
        DELETE FROM federated_identities
        WHERE upstream = ${upstream} AND (issuer <> ${current.issuer} OR subject_claim <> ${current.subject_claim})`;
      return result.count;
    },
    async create_upstream_state(state) {
      await sql`INSERT INTO upstream_states ${sql(encode_postgres(upstream_state_spec, state))}`;
    },
    async take_upstream_state(state_hash, now) {
      // Deleted even when expired: a state is single use whatever its answer (RFC 6749 §10.12).
      const [raw] = await sql`DELETE FROM upstream_states WHERE state_hash = ${state_hash} RETURNING *`;
      const row = decode_or_null(upstream_state_spec, raw);
      return row !== null && row.expires_at > now ? row : null;
    },
  };
}
