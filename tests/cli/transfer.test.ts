/**
 * `idp export` and `idp import` on SQLite (tests/cli/transfer_postgres.test.ts: PostgreSQL): a
 * round trip that compares every exported table row by row and signs a user in over HTTP on the
 * imported database; conflicts, dry runs, and files refused before anything is written.
 */
import { existsSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { account_login, account_page, Browser } from "../helpers/browser.ts";
import { start_provider } from "../helpers/provider.ts";
import { open_raw_sqlite } from "../helpers/raw_sqlite.ts";
import { ExportFileError, parse_export, type ExportDocument } from "../../src/app/transfer/format.ts";
import { TRANSFER_TABLES } from "../../src/store/rows/transfer.ts";
import { sandbox, with_store, type Sandbox } from "./helpers.ts";
import { BOB_PASSWORD, SECRET_KEY, SEED_ENV, seed } from "./transfer_seed.ts";

type Report = {
  dry_run: boolean;
  tables: Record<string, { in_file: number; imported: number; skipped: number }>;
  skipped: { table: string; row: string; reason: string; kind: string }[];
};

const sqlite_path = (box: Sandbox) => box.env.DATABASE_URL!.slice("sqlite:".length);

/** How many users the sandbox's database holds: 0 when a refused import did not even create it. */
const user_count = (box: Sandbox) => (existsSync(sqlite_path(box)) ? raw_tables(box).users!.length : 0);

/** Every column of every exported table as SQLite stores it (derived keys included), in key order. */
function raw_tables(box: Sandbox): Record<string, unknown[]> {
  const db = open_raw_sqlite(sqlite_path(box), { readonly: true });
  try {
    return Object.fromEntries(TRANSFER_TABLES.map((t) => [t.table, db.all(`SELECT * FROM ${t.table} ORDER BY ${t.primary.join(", ")}`)]));
  } finally {
    db.close();
  }
}

let source: Sandbox;
let file: string;

beforeAll(async () => {
  source = sandbox();
  await seed(source);
  file = join(source.dir, "export.json");
  const exported = await source.run(["export", "--out", file, "--include-keys"], { env: SEED_ENV });
  expect(exported.code).toBe(0);
  expect(exported.stdout).toContain(`Exported to ${file} (mode 0600)`);
});
afterAll(() => source.cleanup());

describe("idp export / idp import (SQLite)", () => {
  test("the file is 0600, versioned, holds every exported table in full; an existing file is refused", async () => {
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const document = JSON.parse(readFileSync(file, "utf8")) as ExportDocument;
    expect({ format: document.format, version: document.version, issuer: document.issuer }).toEqual({ format: "idp-export", version: 1, issuer: "https://id.example.com" });
    for (const entry of TRANSFER_TABLES) expect({ table: entry.table, rows: document.areas[entry.area]![entry.table]!.length > 0 }).toEqual({ table: entry.table, rows: true });
    // Values as stored: the argon2id hash, the sealed upstream secret, the sealed private keys.
    const bob = document.areas.users!.users!.find((u) => u.username === "bob")!;
    expect(String(bob.password_hash)).toStartWith("$argon2id$");
    expect(String(document.areas.upstreams!.upstreams![0]!.client_secret_enc)).toStartWith("v1.");
    expect(String(document.areas.webhooks!.webhooks![0]!.secret_sealed)).toStartWith("v1.");
    // Queued webhook deliveries stay behind, like the mail queue.
    expect(TRANSFER_TABLES.some((entry) => entry.table === "webhook_deliveries" || entry.table === "mail_outbox")).toBe(false);
    expect(Object.keys(document.areas.keys!.signing_keys![0]!.private_jwk as object)).toEqual(["sealed"]);
    // Every column of each table is exported, but the adapters' derived lookup keys.
    const db = open_raw_sqlite(sqlite_path(source), { readonly: true });
    for (const entry of TRANSFER_TABLES) {
      const columns = db.all<{ name: string }>(`SELECT name FROM pragma_table_info('${entry.table}')`).map((c) => c.name);
      expect({ table: entry.table, columns: columns.sort() }).toEqual({
        table: entry.table,
        columns: [...new Set([...Object.keys(entry.columns), ...Object.keys(entry.derived ?? {})])].sort(),
      });
    }
    db.close();
    const audited = await with_store(source, (store) => store.list_audit_events({ type: "data_exported" }));
    expect(audited[0]!.details).toMatchObject({ via: "cli", include_keys: true, rows: { users: 3, groups: 2, clients: 2 } });
    const again = await source.run(["export", "--out", file]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("exists");
    // Without --out the document goes to stdout, without the signing keys unless asked.
    const stdout = await source.run(["export"]);
    expect((JSON.parse(stdout.stdout) as ExportDocument).areas.keys).toBeUndefined();
  });

  test("round trip into an empty database: every table equal row by row; bob signs in over HTTP with his password", async () => {
    const target = sandbox();
    try {
      const imported = await target.run(["import", file, "--json"], { env: SEED_ENV });
      expect(imported.code).toBe(0);
      const report = imported.json<Report>();
      expect(report.skipped).toEqual([]);
      for (const [table, counts] of Object.entries(report.tables)) expect({ table, ...counts }).toEqual({ table, in_file: counts.in_file, imported: counts.in_file, skipped: 0 });
      expect(raw_tables(target)).toEqual(raw_tables(source));
      const back = await target.run(["export", "--include-keys"], { env: SEED_ENV });
      const original = JSON.parse(readFileSync(file, "utf8")) as ExportDocument;
      expect((JSON.parse(back.stdout) as ExportDocument).areas).toEqual(original.areas);
      // Audited, with counts only.
      const events = await with_store(target, (store) => store.list_audit_events({ type: "data_imported" }));
      expect(events.length).toBe(1);
      expect(JSON.stringify(events[0]!.details)).not.toContain("argon2");

      const t = await start_provider({ database_url: target.env.DATABASE_URL!, config: { federation: { secret_key: SECRET_KEY } } });
      try {
        const browser = new Browser();
        const login = await account_login(t, browser, "bob", BOB_PASSWORD);
        expect(login.status).toBe(303);
        const page = await account_page(t, browser);
        expect(page.html).toContain("Bob Builder");
        const wrong = await account_login(t, new Browser(), "bob", "not bob's passphrase");
        expect(wrong.status).not.toBe(303);
      } finally {
        await t.stop();
      }
    } finally {
      target.cleanup();
    }
  }, 30_000);

  test("onto a database with data: conflicts reported and skipped with what belongs to them; a dry run writes nothing; again imports nothing", async () => {
    const target = sandbox();
    try {
      expect((await target.run(["users", "add", "BOB", "--password-stdin"], { stdin: "another horse battery\n" })).code).toBe(0);
      expect((await target.run(["users", "add", "erin", "--email", "CAROL@example.com", "--password-stdin"], { stdin: "another horse battery\n" })).code).toBe(0);
      expect((await target.run(["groups", "add", "team:ops"])).code).toBe(0);
      const before = raw_tables(target);

      const dry = await target.run(["import", file, "--dry-run", "--json"], { env: SEED_ENV });
      expect(dry.code).toBe(0);
      const planned = dry.json<Report>();
      expect(planned.dry_run).toBe(true);
      expect(raw_tables(target)).toEqual(before);
      const text = await target.run(["import", file, "--dry-run"], { env: SEED_ENV });
      expect(text.stdout).toContain("Dry run: nothing was written.");

      const done = await target.run(["import", file, "--json"], { env: SEED_ENV });
      expect(done.code).toBe(0);
      const report = done.json<Report>();
      expect({ ...report, dry_run: true }).toEqual(planned);
      const reasons = report.skipped.map((s) => `${s.table}: ${s.reason}`);
      // The same username (any case), the same e-mail address (any case), the same group name.
      expect(reasons).toContain("users: the database already has username bob");
      expect(reasons).toContain("users: the database already has email carol@example.com");
      expect(reasons).toContain("groups: the database already has group team:ops");
      // What belongs to a skipped row is skipped with it, not attached to someone else.
      expect(report.skipped.filter((s) => s.table === "passkeys" || s.table === "user_recovery_codes").every((s) => s.kind === "dependent")).toBe(true);
      expect(report.skipped.some((s) => s.table === "federated_identities" && s.kind === "dependent")).toBe(true);
      expect(report.tables.group_members).toEqual({ in_file: 3, imported: 0, skipped: 3 });
      // The rest went in: dave, the admins group, the clients, the upstream, the keys (none here before).
      expect(report.tables.users).toEqual({ in_file: 3, imported: 1, skipped: 2 });
      expect(report.tables.groups).toEqual({ in_file: 2, imported: 1, skipped: 1 });
      expect(report.tables.clients!.imported).toBe(2);
      const after = raw_tables(target);
      expect(after.users!.length).toBe(3);
      expect(after.upstreams).toEqual(raw_tables(source).upstreams);

      const again = await target.run(["import", file, "--json"], { env: SEED_ENV });
      const second = again.json<Report>();
      expect(Object.values(second.tables).every((c) => c.imported === 0)).toBe(true);
      expect(raw_tables(target)).toEqual(after);
      const keys = second.skipped.filter((s) => s.table === "signing_keys");
      expect(keys.length).toBeGreaterThan(0);
      expect(keys[0]!.reason).toBe("the database has signing_keys of its own");
    } finally {
      target.cleanup();
    }
  });

  test("secrets that do not decrypt with this IDP_SECRET_KEY are refused, naming them; nothing is written", async () => {
    const target = sandbox();
    try {
      const other = await target.run(["import", file], { env: { ...SEED_ENV, IDP_SECRET_KEY: Buffer.alloc(32, 7).toString("base64url") } });
      expect(other.code).toBe(1);
      expect(other.stderr).toContain("the client secret of upstream corp");
      expect(other.stderr).toMatch(/the signing secret of webhook [\w-]+/);
      expect(other.stderr).toContain("do not decrypt with this IDP_SECRET_KEY");
      expect(other.stderr).toContain("nothing was imported");
      const unset = await target.run(["import", file]);
      expect(unset.code).toBe(1);
      expect(unset.stderr).toContain("IDP_SECRET_KEY, which is not set");
      expect(user_count(target)).toBe(0);
    } finally {
      target.cleanup();
    }
  });

  test("malformed, truncated, wrong-version and oversized files are refused with a clear error before anything is written", async () => {
    const target = sandbox();
    try {
      const text = readFileSync(file, "utf8");
      const document = JSON.parse(text) as ExportDocument;
      const bad = (name: string, body: string) => {
        const path = join(target.dir, name);
        writeFileSync(path, body);
        return path;
      };
      const with_areas = (areas: unknown) => JSON.stringify({ ...document, areas });
      const user = document.areas.users!.users![0]!;
      const cases: [string, string][] = [
        [bad("truncated.json", text.slice(0, Math.floor(text.length / 2))), "the file is not JSON (cut short?)"],
        [bad("empty.json", ""), "the file is not JSON"],
        [bad("other.json", JSON.stringify({ hello: "world" })), 'not an idp export (no "format": "idp-export"; a file of another provider takes --from'],
        [bad("v2.json", JSON.stringify({ ...document, version: 2 })), "format version 2; this idp reads version 1"],
        [bad("unknown.json", with_areas({ ...document.areas, users: { sessions: [] } })), "areas.users.sessions: not a table this version imports"],
        [bad("type.json", with_areas({ users: { users: [{ ...user, email_verified: "yes" }] } })), "areas.users.users[0]: email_verified"],
        [bad("extra.json", with_areas({ users: { users: [{ ...user, is_admin: true }] } })), "areas.users.users[0]"],
        [bad("missing.json", with_areas({ users: { users: [{ ...user, id: null }] } })), "areas.users.users[0].id: missing"],
        [
          bad("key.json", with_areas({ attributes: { user_attribute_definitions: [{ ...document.areas.attributes!.user_attribute_definitions![0]!, name_key: "other" }] } })),
          "areas.attributes.user_attribute_definitions[0].name_key: is not the key of the row's name",
        ],
        [
          bad("proto.json", `{"format":"idp-export","version":1,"exported_at":1,"issuer":"x","idp_version":"1","areas":{"__proto__":{"users":[]}}}`),
          "areas.__proto__: not an area this version imports",
        ],
      ];
      const big = bad("big.json", "");
      truncateSync(big, 256 * 1024 * 1024 + 1);
      cases.push([big, "larger than 268435456 bytes"]);
      for (const [path, message] of cases) {
        const result = await target.run(["import", path], { env: SEED_ENV });
        expect({ path, code: result.code }).toEqual({ path, code: 1 });
        expect(result.stderr).toContain(message);
        expect(result.stderr).toContain("nothing was imported");
      }
      expect(user_count(target)).toBe(0);
    } finally {
      target.cleanup();
    }
  });

  test("property: any JSON is either a valid export or refused with ExportFileError, never another error", () => {
    const document = JSON.parse(readFileSync(file, "utf8")) as ExportDocument;
    const row = fc.dictionary(fc.constantFrom(...Object.keys(TRANSFER_TABLES[0]!.columns), "x"), fc.jsonValue());
    const candidate = fc.oneof(
      fc.jsonValue(),
      fc.record({
        format: fc.constant("idp-export"),
        version: fc.constantFrom(1, 2, "1"),
        exported_at: fc.integer(),
        issuer: fc.string(),
        idp_version: fc.string(),
        areas: fc.jsonValue(),
      }),
      fc.array(row, { maxLength: 3 }).map((users) => ({ ...document, areas: { users: { users } } })),
    );
    fc.assert(
      fc.property(candidate, (value) => {
        try {
          parse_export(JSON.stringify(value) ?? "");
        } catch (error) {
          if (!(error instanceof ExportFileError)) throw error;
        }
      }),
      { numRuns: 300 },
    );
  });
});
