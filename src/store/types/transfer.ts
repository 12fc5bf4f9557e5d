/**
 * Reading and writing whole tables, for `idp export` and `idp import` (app/transfer/). Which
 * tables, their columns and their order are rows/transfer.ts's.
 */
/** A row as an export holds it: the decoded value of each column of the table's spec. */
export type TransferRow = Record<string, unknown>;

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
