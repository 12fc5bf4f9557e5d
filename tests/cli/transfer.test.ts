/**
 * `idp export` and `idp import` on SQLite (tests/cli/transfer_postgres.test.ts: PostgreSQL): a
 * round trip that compares every exported table row by row and signs a user in over HTTP on the
 * imported database; conflicts, dry runs, and files refused before anything is written.
 */
import { readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
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

type Report = { dry_run: boolean; tables: Record<string, { in_file: number; imported: number; skipped: number }>; skipped: { table: string; row: string; reason: string; kind: string }[] };

const sqlite_path = (box: Sandbox) => box.env.DATABASE_URL!.slice("sqlite:".length);

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
    expect(Object.keys(document.areas.keys!.signing_keys![0]!.private_jwk as object)).toEqual(["sealed"]);
    // Every column of each table is exported, but the adapters' derived lookup keys.
    const db = open_raw_sqlite(sqlite_path(source), { readonly: true });
    for (const entry of TRANSFER_TABLES) {
      const columns = db.all<{ name: string }>(`SELECT name FROM pragma_table_info('${entry.table}')`).map((c) => c.name);
      expect({ table: entry.table, columns: columns.sort() }).toEqual({ table: entry.table, columns: [...Object.keys(entry.columns), ...Object.keys(entry.derived ?? {})].sort() });
    }
    db.close();
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
  });
});
