/** SQLite: forward authentication (protected applications, their cookies, first accesses). */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { forward_auth_code, longest_first, protected_app_row, protected_app_spec } from "../rows/forward_auth.ts";
import { session_spec } from "../rows/sessions.ts";
import type { ForwardAuthStore, ProtectedAppRow } from "../types.ts";
import { insert_sql, update_sql } from "./sql.ts";

export function sqlite_forward_auth(db: SqliteDatabase): Sync<ForwardAuthStore> {
  const cols = columns(protected_app_spec);
  const insert = db.prepare(insert_sql("protected_apps", cols));
  const update = db.prepare(
    update_sql(
      "protected_apps",
      cols.filter((c) => c !== "created_at"),
      ["name"],
    ),
  );
  const by_name = db.prepare("SELECT * FROM protected_apps WHERE name = $name");
  const list = db.prepare("SELECT * FROM protected_apps ORDER BY name");
  // Ordered here, not by SQL: an ORDER BY on an expression costs a sorter per call, several times the search itself (bench/RESULTS.md, "Forward authentication").
  const by_host = db.prepare("SELECT * FROM protected_apps WHERE host = $host");
  const remove = db.prepare("DELETE FROM protected_apps WHERE name = $name");
  const insert_token = db.prepare("INSERT INTO forward_auth_tokens (id_hash, session_id_hash, host, created_at) VALUES ($id_hash, $session_id_hash, $host, $created_at)");
  // A scalar subquery, not a JOIN: the same two index searches, at a fraction of the JOIN's CPU in bun:sqlite (bench/RESULTS.md, "Forward authentication").
  // `IS`: equal, null included (the cookie domain's tokens have none).
  const session_of = db.prepare("SELECT * FROM sessions WHERE id_hash = (SELECT session_id_hash FROM forward_auth_tokens WHERE id_hash = $id_hash AND host IS $host)");
  const insert_code = db.prepare(
    "INSERT INTO forward_auth_codes (code_hash, session_id_hash, host, target, expires_at, created_at) VALUES ($code_hash, $session_id_hash, $host, $target, $expires_at, $created_at)",
  );
  const expired_codes = db.prepare("DELETE FROM forward_auth_codes WHERE expires_at <= $now");
  const take_code = db.prepare("DELETE FROM forward_auth_codes WHERE code_hash = $code_hash RETURNING *");
  // Through the session and application rows: nothing for either that is gone (and no foreign-key error).
  const access = db.prepare(
    `INSERT INTO protected_app_access (session_id_hash, app_name, created_at)
     SELECT sessions.id_hash, protected_apps.name, $now FROM sessions, protected_apps
     WHERE sessions.id_hash = $session_id_hash AND protected_apps.name = $app_name
     ON CONFLICT (session_id_hash, app_name) DO NOTHING`,
  );
  const all = (raw: unknown[]) => raw.map((row) => decode(protected_app_spec, row));

  return {
    create_protected_app(input) {
      const row = protected_app_row(input);
      insert.run(encode_sqlite(protected_app_spec, row));
      return row;
    },
    get_protected_app(name) {
      return decode_or_null(protected_app_spec, by_name.get({ name }));
    },
    list_protected_apps() {
      return all(list.all());
    },
    list_protected_apps_for_host(host) {
      return longest_first(all(by_host.all({ host })));
    },
    update_protected_app(name, changes) {
      const current = decode_or_null(protected_app_spec, by_name.get({ name }));
      if (current === null) return null;
      const next: ProtectedAppRow = { ...current, ...pick_patch(protected_app_spec, changes, ["name", "created_at"]), updated_at: changes.updated_at ?? now_seconds() };
      const { created_at: _kept, ...values } = encode_sqlite(protected_app_spec, next);
      update.run(values);
      return next;
    },
    delete_protected_app(name) {
      return remove.run({ name }).changes > 0;
    },
    create_forward_auth_token(token) {
      insert_token.run({ id_hash: token.id_hash, session_id_hash: token.session_id_hash, host: token.host ?? null, created_at: token.created_at ?? now_seconds() });
    },
    get_forward_auth_session(id_hash, host = null) {
      return decode_or_null(session_spec, session_of.get({ id_hash, host }));
    },
    create_forward_auth_code(code) {
      expired_codes.run({ now: code.created_at });
      insert_code.run({ ...code });
    },
    take_forward_auth_code(code_hash, now) {
      const raw = take_code.get({ code_hash }) as Record<string, unknown> | null | undefined;
      if (raw == null) return null;
      const row = forward_auth_code(raw);
      return row.expires_at <= now ? null : row;
    },
    record_protected_app_access(session_id_hash, app_name, now) {
      return access.run({ session_id_hash, app_name, now: now ?? now_seconds() }).changes > 0;
    },
  };
}
