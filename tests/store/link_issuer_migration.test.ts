/**
 * Migration 21 (src/store/migrations/021_link_issuer.ts): the links to upstream accounts made
 * before it get their upstream's current issuer (OpenID Connect) or user endpoint (OAuth 2.0) and
 * subject claim, exactly as the rules compute them (oidc/federation/identity_source.ts), so they
 * keep signing in; a link whose upstream is gone gets '' and matches nothing. On both databases.
 */
import { open_raw_sqlite } from "../helpers/raw_sqlite.ts";
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { identity_source } from "../../src/oidc/federation/identity_source.ts";
import { latest_version, migrations } from "../../src/store/migrations/index.ts";
import { migrate, open_store } from "../../src/store/open.ts";
import { create_temp_database, use_postgres, pg_connect } from "./pg.ts";
import { T0 } from "./fixtures.ts";

const before = migrations.filter((m) => m.version < 21);

function upstream_sql(name: string, kind: string, issuer: string | null, userinfo: string | null, mapping: string): string {
  const text = (value: string | null) => (value === null ? "NULL" : `'${value}'`);
  return `INSERT INTO upstreams (name, kind, display_name, issuer, userinfo_endpoint, authorization_endpoint, token_endpoint, client_id, scopes, policy, auto_link, claim_mapping, enabled, created_at, updated_at)
  VALUES ('${name}', '${kind}', '${name}', ${text(issuer)}, ${text(userinfo)}, ${kind === "oauth2" ? "'https://hub.example/authorize', 'https://hub.example/token'" : "NULL, NULL"}, 'c', '[]', 'jit', FALSE, '${mapping}', TRUE, ${T0}, ${T0});`;
}

const link_sql = (upstream: string, subject: string) =>
  `INSERT INTO federated_identities (upstream, subject, user_id, email, created_at) VALUES ('${upstream}', '${subject}', 'u1', NULL, ${T0});`;

// Rows as builds before migration 21 wrote them: an OpenID Connect upstream with the default
// mapping, one mapping the subject to another claim, an OAuth 2.0 one, and a link whose upstream is gone.
const ROWS = [
  `INSERT INTO users (id, username, username_key, password_hash, email_verified, phone_number_verified, created_at, updated_at) VALUES ('u1', 'ada', 'ada', '', FALSE, FALSE, ${T0}, ${T0});`,
  upstream_sql("corp", "oidc", "https://sso.corp.example", null, '{"subject":"sub","email":"email"}'),
  upstream_sql("entra", "oidc", "https://login.example/tenant/v2.0", null, '{"subject":"oid"}'),
  upstream_sql("hub", "oauth2", null, "https://api.hub.example/user", '{"subject":"id"}'),
  link_sql("corp", "c-1"),
  link_sql("entra", "e-1"),
  link_sql("hub", "42"),
  link_sql("gone", "g-1"),
].join("\n");

async function check_migrated(url: string): Promise<void> {
  expect(await migrate(url)).toEqual({ applied: migrations.filter((m) => m.version >= 21).map((m) => m.version), version: latest_version });
  const store = await open_store(url, { migrate: false });
  try {
    expect(await store.get_identity("corp", "c-1")).toMatchObject({ issuer: "https://sso.corp.example", subject_claim: "sub" });
    expect(await store.get_identity("entra", "e-1")).toMatchObject({ issuer: "https://login.example/tenant/v2.0", subject_claim: "oid" });
    expect(await store.get_identity("hub", "42")).toMatchObject({ issuer: "https://api.hub.example/user", subject_claim: "id" });
    expect(await store.get_identity("gone", "g-1")).toMatchObject({ issuer: "", subject_claim: "" });
    // What the rules compute for each upstream is what the migration wrote: the links still count.
    for (const [name, subject] of [
      ["corp", "c-1"],
      ["entra", "e-1"],
      ["hub", "42"],
    ] as const) {
      const link = (await store.get_identity(name, subject))!;
      expect({ issuer: link.issuer, subject_claim: link.subject_claim }).toEqual(identity_source((await store.get_upstream(name))!));
      expect(await store.count_stale_identities(name, identity_source((await store.get_upstream(name))!))).toBe(0);
    }
  } finally {
    await store.close();
  }
}

describe("migration 21: sqlite", () => {
  const dir = mkdtempSync(join(tmpdir(), "idp-link-issuer-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("links made before it get their upstream's issuer (or user endpoint) and subject claim; an orphan gets ''", async () => {
    const path = join(dir, "v19.db");
    const raw = open_raw_sqlite(path);
    raw.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT");
    for (const m of before) {
      if (m.sqlite !== "") raw.exec(m.sqlite);
      raw.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)", m.version, m.name);
    }
    raw.exec(ROWS);
    raw.close();
    await check_migrated(`sqlite:${path}`);
  });
});

if (await use_postgres()) {
  describe("migration 21: postgres", () => {
    test("links made before it get their upstream's issuer (or user endpoint) and subject claim; an orphan gets ''", async () => {
      const db = await create_temp_database();
      const sql = pg_connect(db.url);
      try {
        await sql`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`;
        for (const m of before) {
          await sql.unsafe(m.postgres);
          await sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, 0)`;
        }
        await sql.unsafe(ROWS);
        await sql.end({ timeout: 0 });
        await check_migrated(db.url);
      } finally {
        await sql.end({ timeout: 0 }).catch(() => {});
        await db.drop();
      }
    });
  });
}
