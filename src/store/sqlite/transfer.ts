/** SQLite: whole tables read and written for `idp export` and `idp import` (rows/transfer.ts). */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { decode, encode_sqlite } from "../codec.ts";
import { sort_rows, stored_row, stored_spec, transfer_table, type TransferRow } from "../rows/transfer.ts";
import type { TransferBatch, TransferStore } from "../types.ts";
import { insert_sql } from "./sql.ts";

export function sqlite_transfer(db: SqliteDatabase): Sync<TransferStore> {
  // A savepoint inside the group commit's batch: a failing row undoes the whole import, nothing else.
  const insert_all = db.transaction((batches: readonly TransferBatch[]) => {
    for (const batch of batches) {
      const entry = transfer_table(batch.table);
      const spec = stored_spec(entry);
      const insert = db.prepare(insert_sql(entry.table, Object.keys(spec)));
      for (const row of batch.rows) insert.run(encode_sqlite(spec, stored_row(entry, row)));
    }
  });
  return {
    export_rows(table) {
      const entry = transfer_table(table);
      const rows = db.prepare(`SELECT * FROM ${entry.table}`).all() as unknown[];
      return sort_rows(
        entry,
        rows.map((raw) => decode(entry.columns, raw) as TransferRow),
      );
    },
    import_rows(batches) {
      insert_all(batches);
    },
  };
}
