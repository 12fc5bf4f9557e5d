/**
 * `idp backup`, `idp backup verify` and `idp restore` (README, "Backups") on SQLite and on
 * PostgreSQL: a backup taken by a separate process while the server serves sign-ins restores
 * into a fresh database where every user signs in through HTTP with their password and every
 * client, signing key and group is there; damaged, altered and foreign files are refused before
 * anything is written; an encrypted backup needs the right IDP_SECRET_KEY; a database that is not
 * empty is replaced only with --force, after its contents were saved (and, on SQLite, never while
 * a server has it open).
 */
import { afterAll, describe, expect, test } from "../helpers/test_api.ts";
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { open_backup_file } from "../../src/app/backup/file.ts";
import { open_store } from "../../src/store/open.ts";
import { table_count } from "../../src/store/backup.ts";
import type { Store } from "../../src/store/types.ts";
import { get_code, redeem } from "../helpers/flow.ts";
import { start_provider, type TestProvider } from "../helpers/provider.ts";
import { random_token, sha256 } from "../../src/oidc/crypto/secrets.ts";
import { test_databases } from "../store/pg.ts";
import { fresh_database, idp, idp_process, secret_key, serve_database, sign_in, temp_dir, type Fresh, type Kind } from "./backup_helpers.ts";
import { setTimeout as sleep } from "node:timers/promises";

const files = temp_dir();
afterAll(() => files.cleanup());

/** What a restore must bring back whole, read from a store: stable fields only (sign-ins update others). */
async function inventory(store: Store) {
  const users = (await store.list_users({ limit: 1000 }))
    .map((u) => ({ id: u.id, username: u.username, password_hash: u.password_hash, email: u.email }))
    .sort((a, b) => a.id.localeCompare(b.id));
  const clients = (await store.list_clients({ limit: 1000 }))
    .map((c) => ({ client_id: c.client_id, client_secret_hash: c.client_secret_hash, metadata: c.metadata }))
    .sort((a, b) => a.client_id.localeCompare(b.client_id));
  const keys = (await store.list_keys())
    .map((k) => ({ kid: k.kid, alg: k.alg, status: k.status, public_jwk: k.public_jwk, private_jwk: k.private_jwk }))
    .sort((a, b) => a.kid.localeCompare(b.kid));
  const groups = await Promise.all((await store.list_groups()).map(async (g) => ({ name: g.name, members: (await store.list_group_members(g.id)).map((m) => m.user_id).sort() })));
  return { users, clients, keys, groups: groups.sort((a, b) => a.name.localeCompare(b.name)) };
}

async function with_store<T>(url: string, body: (store: Store) => Promise<T>): Promise<T> {
  const store = await open_store(url);
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

const ALICE_PASSWORD = "correct horse battery staple";

/** A database of `kind` seeded by the CLI with one user and the signing keys; returns it with a backup file of it. */
async function seeded_backup(kind: Kind, env: Record<string, string> = {}, options: string[] = []): Promise<{ db: Fresh; file: string }> {
  const db = await fresh_database(kind, files.dir);
  const added = await idp(["users", "add", "alice", "--password-stdin"], { DATABASE_URL: db.url, ...env }, ALICE_PASSWORD);
  expect([added.code, added.stderr]).toEqual([0, ""]);
  // The key ring makes the signing keys (sealed with IDP_SECRET_KEY when it is set).
  expect((await idp(["keys", "list"], { DATABASE_URL: db.url, ...env })).code).toBe(0);
  const file = join(files.dir, `${crypto.randomUUID()}.idpbackup`);
  const made = await idp(["backup", "--out", file, ...options], { DATABASE_URL: db.url, ...env });
  expect([made.code, made.stderr]).toEqual([0, ""]);
  return { db, file };
}

for (const { name } of await test_databases()) {
  const kind = name as Kind;

  describe(`backups on ${kind}`, () => {
    test("a backup taken by another process under load restores to a fresh database: every user signs in, every client, key and group is there", async () => {
      const source = await fresh_database(kind, files.dir);
      const target = await fresh_database(kind, files.dir);
      const t: TestProvider = await start_provider({ database_url: source.url, config: { rate_limits: { enabled: false } } });
      let restored: Awaited<ReturnType<typeof serve_database>> | null = null;
      try {
        const passwords = { bob: "purple elephants dance", carol: "seven quiet lanterns" };
        const bob = await t.add_user({ username: "bob", email: "bob@example.com" }, passwords.bob);
        const carol = await t.add_user({ username: "carol" }, passwords.carol);
        const second = await t.add_client({ client_name: "Second", token_endpoint_auth_method: "client_secret_basic" }, { client_id: "second-app" });
        const staff = await t.store.create_group({ name: "staff" });
        const ops = await t.store.create_group({ name: "ops" });
        await t.store.add_group_member(staff.id, t.user.id);
        await t.store.add_group_member(staff.id, bob.id);
        await t.store.add_group_member(ops.id, carol.id);
        const before = await inventory(t.store);

        // Sign-ins run without pause (sessions, codes, tokens written) while another process backs up.
        let running = true;
        let flows = 0;
        const load = Array.from({ length: 4 }, async () => {
          while (running) {
            const { code, pkce } = await get_code(t);
            expect((await redeem(t, code, pkce!.verifier)).status).toBe(200);
            flows++;
          }
        });
        while (flows < 8) await sleep(20);
        const file = join(files.dir, `under-load-${kind}.idpbackup`);
        const at_start = flows;
        const made = await idp_process(["backup", "--out", file, "--json"], { DATABASE_URL: source.url });
        const at_end = flows;
        running = false;
        await Promise.all(load);
        expect([made.code, made.stderr]).toEqual([0, ""]);
        // Sign-ins went on while the other process copied the database.
        expect(at_end).toBeGreaterThan(at_start);
        expect(JSON.parse(made.stdout).manifest).toMatchObject({ format: 1, database: kind, encryption: null });
        expect(statSync(file).mode & 0o777).toBe(0o600);

        const verified = await idp(["backup", "verify", file], {});
        expect([verified.code, verified.stderr]).toEqual([0, ""]);
        expect(verified.stdout).toContain("checksum:  ok");

        const back = await idp(["restore", file, "--json"], { DATABASE_URL: target.url });
        expect([back.code, back.stderr]).toEqual([0, ""]);
        expect(JSON.parse(back.stdout)).toMatchObject({ saved: null, applied: [] });
        expect(await with_store(target.url, inventory)).toEqual(before);

        restored = await serve_database(target.url);
        const test_app = { client_id: t.client.client_id, secret: t.secret };
        expect(await sign_in(restored.url, test_app, "alice", t.password)).toBe(t.user.id);
        expect(await sign_in(restored.url, test_app, "bob", passwords.bob)).toBe(bob.id);
        expect(await sign_in(restored.url, { client_id: "second-app", secret: second.secret! }, "carol", passwords.carol)).toBe(carol.id);
        // The restored keys are the ones relying parties already hold.
        const jwks = (await (await fetch(`${restored.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
        expect(jwks.keys.map((k) => k.kid).sort()).toEqual(
          before.keys
            .filter((k) => k.status !== "retired")
            .map((k) => k.kid)
            .sort(),
        );
      } finally {
        await restored?.stop();
        await t.stop();
        await source.drop();
        await target.drop();
      }
    }, 60_000);

    test("a truncated, an altered or a foreign file is refused by verify and by restore, and the database stays empty", async () => {
      const { db, file } = await seeded_backup(kind);
      const target = await fresh_database(kind, files.dir);
      try {
        const whole = readFileSync(file);
        const opened = open_backup_file(file);
        const cases: [string, Buffer, RegExp][] = [
          ["truncated", whole.subarray(0, whole.length - 100), /is cut short: its payload has \d+ of \d+ bytes/],
          ["appended to", Buffer.concat([whole, Buffer.from("x")]), /1 bytes more than its manifest says/],
          ["a payload byte flipped", Buffer.from(whole).fill(whole[opened.offset + 2000]! ^ 0xff, opened.offset + 2000, opened.offset + 2001), /does not match its checksum/],
          ["not a backup", Buffer.from("SQLite format 3\0 and so on\n"), /is not an idp backup file/],
          ["a manifest that is not JSON", Buffer.from("idp-backup/1\n{not json}\n"), /unreadable manifest/],
        ];
        for (const [what, bytes, message] of cases) {
          const bad = join(files.dir, `${what.replaceAll(" ", "-")}-${kind}.idpbackup`);
          writeFileSync(bad, bytes);
          const verified = await idp(["backup", "verify", bad], {});
          expect([what, verified.code, verified.stderr]).toEqual([what, 1, expect.stringMatching(message)]);
          const restored = await idp(["restore", bad], { DATABASE_URL: target.url });
          expect([what, restored.code, restored.stderr]).toEqual([what, 1, expect.stringMatching(message)]);
        }
        // A manifest changed to a newer schema than this build knows, checksum intact.
        const manifest = JSON.stringify(opened.manifest);
        const newer = join(files.dir, `newer-${kind}.idpbackup`);
        writeFileSync(newer, Buffer.concat([Buffer.from(`idp-backup/1\n${manifest.replace(/"schema":\d+/, '"schema":999')}\n`), whole.subarray(opened.offset)]));
        expect((await idp(["restore", newer], { DATABASE_URL: target.url })).stderr).toMatch(/is at schema 999, newer than this build knows/);
        if (kind === "sqlite") {
          // An older schema claimed: the copy inside says otherwise.
          const older = join(files.dir, "older-sqlite.idpbackup");
          writeFileSync(older, Buffer.concat([Buffer.from(`idp-backup/1\n${manifest.replace(/"schema":\d+/, '"schema":3')}\n`), whole.subarray(opened.offset)]));
          expect((await idp(["backup", "verify", older], {})).stderr).toMatch(/says schema 3, but its database is at schema \d+: the manifest was altered/);
          expect((await idp(["restore", older], { DATABASE_URL: target.url })).code).toBe(1);
        }
        // A backup of the other kind of database.
        const other = kind === "sqlite" ? "postgres://postgres@127.0.0.1:1/none" : `sqlite:${join(files.dir, "other.sqlite")}`;
        expect((await idp(["restore", file], { DATABASE_URL: other })).stderr).toMatch(/is a backup of a .* database; DATABASE_URL names a/);
        expect(await table_count(target.url)).toBe(0);
        expect(await table_count(other.startsWith("sqlite:") ? other : target.url)).toBe(0);
        if (kind === "postgres") {
          // Without PostgreSQL's client tools on the PATH: the command to run instead, no password in it.
          const url = new URL(db.url);
          url.password = "s3cret-db-password";
          const without = await idp(["backup", "--out", join(files.dir, "no-tools.idpbackup")], { DATABASE_URL: url.href, PATH: "/nonexistent" });
          expect([without.code, without.stderr]).toEqual([1, expect.stringContaining("pg_dump is not on the PATH")]);
          expect(without.stderr).toContain(`PGPASSWORD=… pg_dump --format=custom --file='idp.dump' 'postgres://postgres@`);
          expect(without.stderr).not.toContain("s3cret-db-password");
          expect((await idp(["restore", file], { DATABASE_URL: target.url, PATH: "/nonexistent" })).stderr).toMatch(/pg_restore is not on the PATH.*pg_restore --no-owner/);
        }
      } finally {
        await db.drop();
        await target.drop();
      }
    }, 60_000);

    test("an encrypted backup: refused without IDP_SECRET_KEY, opens only with its key, restores and serves with it", async () => {
      const key = secret_key();
      const refused = await idp(["backup", "--out", join(files.dir, `never-${kind}.idpbackup`), "--encrypt"], { DATABASE_URL: `sqlite:${join(files.dir, "none.sqlite")}` });
      expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/--encrypt needs IDP_SECRET_KEY/)]);
      expect(existsSync(join(files.dir, `never-${kind}.idpbackup`))).toBe(false);

      // The source's signing keys are sealed with the key too (oidc/keys/sealed_keys.ts).
      const { db, file } = await seeded_backup(kind, { IDP_SECRET_KEY: key }, ["--encrypt"]);
      const target = await fresh_database(kind, files.dir);
      let server: Awaited<ReturnType<typeof serve_database>> | null = null;
      try {
        const opened = open_backup_file(file);
        expect(opened.manifest.encryption).toMatchObject({ alg: "A256GCM", kdf: "HKDF-SHA256" });
        // The payload is not the copy in clear: no SQLite header, no pg_dump header.
        const payload = readFileSync(file).subarray(opened.offset);
        expect(payload.subarray(0, 16).toString("latin1")).not.toMatch(/^(SQLite format 3|PGDMP)/);

        expect((await idp(["backup", "verify", file], { IDP_SECRET_KEY: key })).stdout).toContain("decrypts:  yes");
        const without = await idp(["backup", "verify", file, "--json"], {});
        expect(without.code).toBe(0);
        expect(JSON.parse(without.stdout)).toMatchObject({ decrypted: false });
        const wrong = await idp(["backup", "verify", file], { IDP_SECRET_KEY: secret_key() });
        expect([wrong.code, wrong.stderr]).toEqual([1, expect.stringMatching(/does not decrypt with IDP_SECRET_KEY/)]);
        expect((await idp(["restore", file], { DATABASE_URL: target.url, IDP_SECRET_KEY: secret_key() })).stderr).toMatch(/does not decrypt with IDP_SECRET_KEY/);
        expect((await idp(["restore", file], { DATABASE_URL: target.url })).stderr).toMatch(/is encrypted: set IDP_SECRET_KEY/);
        expect(await table_count(target.url)).toBe(0);

        // Changing the manifest in the clear breaks the authentication even with the checksum made to match.
        const tampered = join(files.dir, `tampered-encrypted-${kind}.idpbackup`);
        const manifest = { ...opened.manifest, created_at: "2000-01-01T00:00:00.000Z" };
        writeFileSync(tampered, Buffer.concat([Buffer.from(`idp-backup/1\n${JSON.stringify(manifest)}\n`), payload]));
        expect((await idp(["restore", tampered], { DATABASE_URL: target.url, IDP_SECRET_KEY: key })).stderr).toMatch(/does not decrypt with IDP_SECRET_KEY/);

        const back = await idp(["restore", file], { DATABASE_URL: target.url, IDP_SECRET_KEY: key });
        expect([back.code, back.stderr]).toEqual([0, ""]);
        server = await serve_database(target.url, { federation: { secret_key: key } });
        const user = await with_store(target.url, async (store) => (await store.get_user_by_username("alice"))!);
        // A client to sign in with, added to the restored database.
        const secret = random_token(32);
        await with_store(target.url, (store) =>
          store.create_client({
            client_id: "after-restore",
            client_secret_hash: sha256(secret),
            metadata: {
              redirect_uris: ["https://rp.example.com/callback"],
              grant_types: ["authorization_code"],
              response_types: ["code"],
              token_endpoint_auth_method: "client_secret_basic",
            },
          }),
        );
        expect(await sign_in(server.url, { client_id: "after-restore", secret }, "alice", ALICE_PASSWORD)).toBe(user.id);
      } finally {
        await server?.stop();
        await db.drop();
        await target.drop();
      }
    }, 60_000);

    test("--force: a database that is not empty is refused, then replaced after its contents were saved", async () => {
      const { db, file } = await seeded_backup(kind);
      const target = await fresh_database(kind, files.dir);
      try {
        expect((await idp(["users", "add", "zed", "--password-stdin"], { DATABASE_URL: target.url }, "a tapir in the orchard")).code).toBe(0);
        const usernames = () => with_store(target.url, async (store) => (await store.list_users()).map((u) => u.username));

        const refused = await idp(["restore", file], { DATABASE_URL: target.url });
        expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/is not empty \(\d+ tables\): restore into an empty database, or add --force/)]);
        expect(await usernames()).toEqual(["zed"]);

        if (kind === "sqlite") {
          // A server holding the file: refused, nothing changed, nothing saved.
          const server = await serve_database(target.url);
          try {
            const busy = await idp(["restore", file, "--force"], { DATABASE_URL: target.url });
            expect([busy.code, busy.stderr]).toEqual([1, expect.stringMatching(/is in use by another process \(a running server\?\): stop it/)]);
          } finally {
            await server.stop();
          }
          expect(await usernames()).toEqual(["zed"]);
          expect(readdirSync(files.dir).filter((f) => f.startsWith("idp-pre-restore-"))).toEqual([]);
        }

        const forced = await idp(["restore", file, "--force", "--json"], { DATABASE_URL: target.url });
        expect([forced.code, forced.stderr]).toEqual([0, ""]);
        const saved = JSON.parse(forced.stdout).saved as string;
        expect(saved).toMatch(/idp-pre-restore-\d{8}T\d{6}Z(-\d+)?\.idpbackup$/);
        expect(await usernames()).toEqual(["alice"]);
        // What --force replaced comes back from the file it saved.
        expect((await idp(["backup", "verify", saved], {})).code).toBe(0);
        const undo = await idp(["restore", saved, "--force"], { DATABASE_URL: target.url });
        expect([undo.code, undo.stderr]).toEqual([0, ""]);
        expect(await usernames()).toEqual(["zed"]);
      } finally {
        for (const name of readdirSync(files.dir).filter((f) => f.startsWith("idp-pre-restore-"))) rmSync(join(files.dir, name));
        await db.drop();
        await target.drop();
      }
    }, 60_000);
  });
}
