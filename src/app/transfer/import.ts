/**
 * `idp import FILE`: an export (format.ts) into the database. The whole file is checked first
 * (form, version, every row, and that its encrypted values open with this IDP_SECRET_KEY); then
 * each table in the order of store/rows/transfer.ts, each row against the database and the rows
 * already taken from the file:
 * - a row whose primary key or other key (a username, an e-mail address, a group's name, a
 *   client_id, a passkey's credential, …) the database already has is a conflict: skipped;
 * - a row that refers to a row that was skipped (a passkey of a skipped user) is skipped too;
 * - signing keys are imported only into a database that has none.
 * The rows kept are written in one transaction (store import_rows): all of them or none. A dry
 * run stops before writing and reports the same.
 */
import { open_secret } from "../../oidc/federation/secret_box.ts";
import { open_webhook_secret } from "../../oidc/webhooks/secret.ts";
import { is_sealed_jwk, open_private_jwk } from "../../oidc/keys/sealed_keys.ts";
import { secret_key_bytes } from "../../oidc/crypto/envelope.ts";
import { TRANSFER_TABLES, type TransferRow, type TransferTable } from "../../store/rows/transfer.ts";
import type { JsonObject, Store, TransferBatch } from "../../store/types.ts";
import { ExportFileError, rows_of, type ExportDocument } from "./format.ts";

/** A row of the file that was not imported, and why. */
export type Skipped = { table: string; row: string; reason: string; kind: "conflict" | "dependent" };

export type ImportReport = {
  dry_run: boolean;
  exported_at: number;
  issuer: string;
  idp_version: string;
  /** Per table: rows in the file, rows imported (or that would be, in a dry run), rows skipped. */
  tables: Record<string, { in_file: number; imported: number; skipped: number }>;
  skipped: Skipped[];
};

/**
 * The encrypted values of the file that do not open with `secret_key` (this server's
 * IDP_SECRET_KEY): an upstream's client secret, a webhook's signing secret, a sealed signing key. Importing them would store
 * secrets nothing can use, so the import is refused while there are any.
 */
export function unusable_secrets(document: ExportDocument, secret_key: string | undefined): string[] {
  const problems: string[] = [];
  for (const row of rows_of(document, table("upstreams"))) {
    if (typeof row.client_secret_enc !== "string") continue;
    try {
      open_secret(secret_key, String(row.name), row.client_secret_enc);
    } catch {
      problems.push(`the client secret of upstream ${String(row.name)}`);
    }
  }
  for (const row of rows_of(document, table("webhooks"))) {
    try {
      open_webhook_secret(secret_key, String(row.id), String(row.secret_sealed));
    } catch {
      problems.push(`the signing secret of webhook ${String(row.id)}`);
    }
  }
  for (const row of rows_of(document, table("signing_keys"))) {
    const jwk = row.private_jwk as JsonObject;
    if (!is_sealed_jwk(jwk)) continue;
    try {
      open_private_jwk(secret_key === undefined ? null : secret_key_bytes(secret_key), String(row.kid), jwk);
    } catch {
      problems.push(`signing key ${String(row.kid)}`);
    }
  }
  return problems;
}

/** Raises ExportFileError when the file holds secrets this server could not open. */
export function check_secrets(document: ExportDocument, secret_key: string | undefined): void {
  const problems = unusable_secrets(document, secret_key);
  if (problems.length === 0) return;
  throw new ExportFileError(
    `${problems.join(", ")} ${problems.length === 1 ? "does" : "do"} not decrypt with ${secret_key === undefined ? "IDP_SECRET_KEY, which is not set" : "this IDP_SECRET_KEY"}: ` +
      "set IDP_SECRET_KEY to the key of the server the file was exported from (or remove the upstream's client secret or the webhook there, or export without --include-keys) and import again; nothing was written",
  );
}

function table(name: string): TransferTable {
  return TRANSFER_TABLES.find((entry) => entry.table === name)!;
}

const primary_of = (entry: TransferTable, row: TransferRow) => entry.primary.map((column) => String(row[column])).join(" ");
const labels_of = (entry: TransferTable, row: TransferRow): string[] => [
  `${entry.primary.join(", ")} ${primary_of(entry, row)}`,
  ...(entry.keys ?? []).map((key) => key(row)).filter((label) => label !== null),
];

/** Decides which rows of the file go in, against what the database holds; writes them unless a dry run. */
export async function import_document(store: Store, document: ExportDocument, options: { dry_run: boolean }): Promise<ImportReport> {
  const report: ImportReport = { dry_run: options.dry_run, exported_at: document.exported_at, issuer: document.issuer, idp_version: document.idp_version, tables: {}, skipped: [] };
  // Per table: the primary keys present after the import (the database's and those taken), and those skipped.
  const present = new Map<string, Set<string>>();
  const dropped = new Map<string, Set<string>>();
  const batches: TransferBatch[] = [];
  for (const entry of TRANSFER_TABLES) {
    const rows = rows_of(document, entry);
    const existing = await store.export_rows(entry.table);
    const keys = new Set(existing.flatMap((row) => labels_of(entry, row)));
    const here = new Set(existing.map((row) => primary_of(entry, row)));
    const gone = new Set<string>();
    present.set(entry.table, here);
    dropped.set(entry.table, gone);
    const taken: TransferRow[] = [];
    const skip = (row: TransferRow, kind: Skipped["kind"], reason: string) => {
      gone.add(primary_of(entry, row));
      report.skipped.push({ table: entry.table, row: primary_of(entry, row), reason, kind });
    };
    for (const row of rows) {
      const orphan = missing_parent(entry, row, present, dropped);
      if (orphan !== null) {
        skip(row, "dependent", orphan);
        continue;
      }
      if (entry.optional === true && existing.length > 0) {
        skip(row, "conflict", `the database has ${entry.table} of its own`);
        continue;
      }
      const clash = labels_of(entry, row).find((label) => keys.has(label));
      if (clash !== undefined) {
        skip(row, "conflict", `the database already has ${clash}`);
        continue;
      }
      for (const label of labels_of(entry, row)) keys.add(label);
      here.add(primary_of(entry, row));
      taken.push(row);
    }
    report.tables[entry.table] = { in_file: rows.length, imported: taken.length, skipped: rows.length - taken.length };
    if (taken.length > 0) batches.push({ table: entry.table, rows: taken });
  }
  if (!options.dry_run && batches.length > 0) await store.import_rows(batches);
  return report;
}

/** Why a row cannot go in for want of the row it refers to, or null. */
function missing_parent(entry: TransferTable, row: TransferRow, present: Map<string, Set<string>>, dropped: Map<string, Set<string>>): string | null {
  for (const [column, tables] of Object.entries(entry.parents ?? {})) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    const id = String(value);
    const skipped_in = tables.find((t) => dropped.get(t)?.has(id) === true);
    if (skipped_in !== undefined) return `its ${column} ${id} (${skipped_in}) was not imported`;
    if (!tables.some((t) => present.get(t)?.has(id) === true)) return `its ${column} ${id} is neither in the file nor in the database`;
  }
  return null;
}
