/** PostgreSQL: whole tables read and written for `idp export` and `idp import` (rows/transfer.ts). */
import type { PgSql } from "./driver.ts";
import { decode } from "../codec.ts";
import { sort_rows, stored_row, stored_spec, transfer_table, type TransferRow } from "../rows/transfer.ts";
import type { TransferStore } from "../types.ts";

export function pg_transfer(sql: PgSql): TransferStore {
  return {
    async export_rows(table) {
      const entry = transfer_table(table);
      // The table's name comes from the fixed list (rows/transfer.ts), never from input.
      const rows: unknown[] = await sql.unsafe(`SELECT * FROM ${entry.table}`);
      return sort_rows(
        entry,
        rows.map((raw) => decode(entry.columns, raw) as TransferRow),
      );
    },
    async import_rows(batches) {
      await sql.begin(async (tx) => {
        for (const batch of batches) {
          const entry = transfer_table(batch.table);
          const spec = Object.entries(stored_spec(entry));
          // JSON goes as text cast to jsonb: the same text whichever driver sends it.
          const values = spec.map(([, kind], i) => (kind === "json" ? `($${i + 1}::text)::jsonb` : `$${i + 1}`));
          const text = `INSERT INTO ${entry.table} (${spec.map(([column]) => column).join(", ")}) VALUES (${values.join(", ")})`;
          for (const row of batch.rows) {
            const stored = stored_row(entry, row);
            await tx.unsafe(
              text,
              spec.map(([column, kind]) => {
                const value = stored[column] ?? null;
                if (kind === "bool") return value === true;
                return kind === "json" && value !== null ? JSON.stringify(value) : value;
              }),
            );
          }
        }
      });
    },
  };
}
