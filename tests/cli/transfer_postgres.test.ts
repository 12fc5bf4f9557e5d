/**
 * `idp export` and `idp import` across databases: a SQLite database exported, imported into an
 * empty PostgreSQL database (every table equal row by row, bob signs in over HTTP there), and
 * exported from PostgreSQL back into an empty SQLite database, equal to the first.
 */
import { join } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, test } from "../helpers/test_api.ts";
import { account_login, account_page, Browser } from "../helpers/browser.ts";
import { start_provider } from "../helpers/provider.ts";
import { create_temp_database, use_postgres } from "../store/pg.ts";
import type { ExportDocument } from "../../src/app/transfer/format.ts";
import { sandbox } from "./helpers.ts";
import { BOB_PASSWORD, SECRET_KEY, SEED_ENV, seed } from "./transfer_seed.ts";

type Report = { tables: Record<string, { in_file: number; imported: number; skipped: number }>; skipped: unknown[] };

if (await use_postgres()) {
  describe("idp export / idp import (PostgreSQL)", () => {
    test("SQLite → PostgreSQL → SQLite: every exported table equal row by row; bob signs in on PostgreSQL; conflicts on PostgreSQL", async () => {
      const source = sandbox();
      const back = sandbox();
      const pg = await create_temp_database();
      try {
        await seed(source);
        const file = join(source.dir, "export.json");
        expect((await source.run(["export", "--out", file, "--include-keys"], { env: SEED_ENV })).code).toBe(0);
        const original = JSON.parse(readFileSync(file, "utf8")) as ExportDocument;

        const on_pg = { ...SEED_ENV, DATABASE_URL: pg.url };
        const imported = await source.run(["import", file, "--json"], { env: on_pg });
        expect(imported.code).toBe(0);
        expect(imported.json<Report>().skipped).toEqual([]);
        const from_pg = await source.run(["export", "--include-keys"], { env: on_pg });
        const pg_document = JSON.parse(from_pg.stdout) as ExportDocument;
        expect(pg_document.areas).toEqual(original.areas);

        // The same file again onto PostgreSQL: every row is a conflict or belongs to one, nothing is written.
        const again = await source.run(["import", file, "--json"], { env: on_pg });
        expect(Object.values(again.json<Report>().tables).every((c) => c.imported === 0)).toBe(true);

        const pg_file = join(back.dir, "from_pg.json");
        writeFileSync(pg_file, from_pg.stdout);
        expect((await back.run(["import", pg_file], { env: SEED_ENV })).code).toBe(0);
        const round = JSON.parse((await back.run(["export", "--include-keys"], { env: SEED_ENV })).stdout) as ExportDocument;
        expect(round.areas).toEqual(original.areas);

        const t = await start_provider({ database_url: pg.url, config: { federation: { secret_key: SECRET_KEY } } });
        try {
          const browser = new Browser();
          expect((await account_login(t, browser, "bob", BOB_PASSWORD)).status).toBe(303);
          expect((await account_page(t, browser)).html).toContain("Bob Builder");
        } finally {
          await t.stop();
        }
      } finally {
        source.cleanup();
        back.cleanup();
        await pg.drop();
      }
    }, 60_000);
  });
}
