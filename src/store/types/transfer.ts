/**
 * Reading and writing whole tables, for `idp export` and `idp import` (app/transfer/). Which
 * tables, their columns and their order are rows/transfer.ts's.
 */
import type { TransferRow } from "../rows/transfer.ts";

export type { TransferRow } from "../rows/transfer.ts";

/** The rows of one exported table, for an import to write. */
export type TransferBatch = { table: string; rows: readonly TransferRow[] };

export interface TransferStore {
  /** Every row of an exported table (rows/transfer.ts), decoded by its spec, in primary-key order (by code unit). */
  export_rows(table: string): Promise<TransferRow[]>;
  /**
   * Inserts the batches' rows as they are (hashes, sealed values, times and versions included),
   * in the order given, all in one transaction: a clash (StoreConflictError) or a missing
   * referenced row (StoreReferenceError) writes nothing. The caller leaves out the rows that clash.
   */
  import_rows(batches: readonly TransferBatch[]): Promise<void>;
}
