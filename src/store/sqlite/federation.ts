/** SQLite: upstream identity providers, linked upstream accounts, pending upstream sign-ins. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { federated_identity_row, federated_identity_spec, upstream_row, upstream_spec, upstream_state_spec } from "../rows/federation.ts";
import type { FederationStore } from "../types.ts";
import { insert_sql } from "./sql.ts";

export function sqlite_federation(db: SqliteDatabase): Sync<FederationStore> {
  const insert = db.prepare(insert_sql("upstreams", columns(upstream_spec)));
  const by_name = db.prepare("SELECT * FROM upstreams WHERE name = $name");
  const list = db.prepare("SELECT * FROM upstreams ORDER BY name");
  const remove_links = db.prepare("DELETE FROM federated_identities WHERE upstream = $name");
  const remove = db.prepare("DELETE FROM upstreams WHERE name = $name");
  const remove_at_version = db.prepare("DELETE FROM upstreams WHERE name = $name AND version = $version");
  const insert_identity = db.prepare(insert_sql("federated_identities", columns(federated_identity_spec)));
  const identity = db.prepare("SELECT * FROM federated_identities WHERE upstream = $upstream AND subject = $subject");
  const for_user = db.prepare("SELECT * FROM federated_identities WHERE user_id = $user_id ORDER BY created_at, upstream, subject");
  const unlink = db.prepare("DELETE FROM federated_identities WHERE user_id = $user_id AND upstream = $upstream AND subject = $subject");
  const touch = db.prepare("UPDATE federated_identities SET last_used_at = $now WHERE upstream = $upstream AND subject = $subject");
  const STALE = "upstream = $upstream AND (issuer <> $issuer OR subject_claim <> $subject_claim)";
  const count_stale = db.prepare(`SELECT count(*) AS n FROM federated_identities WHERE ${STALE}`);
  const delete_stale = db.prepare(`DELETE FROM federated_identities WHERE ${STALE}`);
  const insert_state = db.prepare(insert_sql("upstream_states", columns(upstream_state_spec)));
  const take = db.prepare("DELETE FROM upstream_states WHERE state_hash = $state_hash RETURNING *");

  return {
    create_upstream(input) {
      const row = upstream_row(input);
      insert.run(encode_sqlite(upstream_spec, row));
      return row;
    },
    get_upstream(name) {
      return decode_or_null(upstream_spec, by_name.get({ name }));
    },
    list_upstreams() {
      return list.all().map((raw) => decode(upstream_spec, raw));
    },
    update_upstream(name, patch, options) {
      // The read and the UPDATE run in the group commit's batch, which holds the write lock: no
      // other write comes between the version compared and the one written (IfVersion).
      const current = decode_or_null(upstream_spec, by_name.get({ name }));
      if (current === null) return null;
      if (options?.if_version !== undefined && current.version !== options.if_version) return null;
      const next = {
        ...current,
        ...pick_patch(upstream_spec, patch, ["name", "created_at", "version"]),
        updated_at: patch.updated_at ?? now_seconds(),
        version: current.version + 1,
      };
      const values = encode_sqlite(upstream_spec, next);
      const set = columns(upstream_spec).filter((c) => c !== "name" && c !== "created_at");
      db.prepare(`UPDATE upstreams SET ${set.map((c) => `${c} = $${c}`).join(", ")} WHERE name = $name`).run(values);
      return next;
    },
    delete_upstream(name, options) {
      return db.transaction(() => {
        // With if_version the upstream goes first: when it changed (IfVersion), its links stay.
        if (options?.if_version !== undefined && remove_at_version.run({ name, version: options.if_version }).changes === 0) return false;
        remove_links.run({ name });
        return options?.if_version !== undefined || remove.run({ name }).changes > 0;
      })();
    },
    link_identity(input) {
      const row = federated_identity_row(input);
      insert_identity.run(encode_sqlite(federated_identity_spec, row));
      return row;
    },
    get_identity(upstream, subject) {
      return decode_or_null(federated_identity_spec, identity.get({ upstream, subject }));
    },
    list_identities_for_user(user_id) {
      return for_user.all({ user_id }).map((raw) => decode(federated_identity_spec, raw));
    },
    unlink_identity(user_id, upstream, subject) {
      return unlink.run({ user_id, upstream, subject }).changes > 0;
    },
    touch_identity(upstream, subject, now) {
      touch.run({ upstream, subject, now });
    },
    count_stale_identities(upstream, current) {
      return (count_stale.get({ upstream, issuer: current.issuer, subject_claim: current.subject_claim }) as { n: number }).n;
    },
    delete_stale_identities(upstream, current) {
      return delete_stale.run({ upstream, issuer: current.issuer, subject_claim: current.subject_claim }).changes;
    },
    create_upstream_state(state) {
      insert_state.run(encode_sqlite(upstream_state_spec, state));
    },
    take_upstream_state(state_hash, now) {
      // Deleted even when expired: a state is single use whatever its answer (RFC 6749 §10.12).
      const row = decode_or_null(upstream_state_spec, take.get({ state_hash }));
      return row !== null && row.expires_at > now ? row : null;
    },
  };
}
