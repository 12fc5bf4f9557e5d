/**
 * `idp export`: the tables of store/rows/transfer.ts as one document (format.ts), written to a
 * new file only its owner can read, or to standard output.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { TRANSFER_TABLES } from "../../store/rows/transfer.ts";
import type { Store } from "../../store/types.ts";
import { EXPORT_FILE_MODE, FORMAT, FORMAT_VERSION, type ExportDocument } from "./format.ts";

export type ExportOptions = {
  /** The private signing keys too (sealed as stored): the importing server then signs as this one. */
  include_keys?: boolean;
  issuer: string;
  idp_version: string;
  now: number;
};

/** The document of the database's exported tables. */
export async function export_document(store: Store, options: ExportOptions): Promise<ExportDocument> {
  const areas: ExportDocument["areas"] = {};
  for (const entry of TRANSFER_TABLES) {
    if (entry.optional === true && options.include_keys !== true) continue;
    (areas[entry.area] ??= {})[entry.table] = await store.export_rows(entry.table);
  }
  return { format: FORMAT, version: FORMAT_VERSION, exported_at: options.now, issuer: options.issuer, idp_version: options.idp_version, areas };
}

/** How many rows of each table a document holds. */
export function row_counts(document: ExportDocument): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const tables of Object.values(document.areas)) for (const [table, rows] of Object.entries(tables)) counts[table] = rows.length;
  return counts;
}

/** The document as the file holds it: one table a line, so a diff of two exports reads. */
export function export_text(document: ExportDocument): string {
  const areas = Object.entries(document.areas).map(
    ([area, tables]) =>
      `    ${JSON.stringify(area)}: {\n${Object.entries(tables)
        .map(([table, rows]) => `      ${JSON.stringify(table)}: [${rows.map((row) => `\n        ${JSON.stringify(row)}`).join(",")}${rows.length > 0 ? "\n      " : ""}]`)
        .join(",\n")}\n    }`,
  );
  const { areas: _areas, ...head } = document;
  const fields = Object.entries(head).map(([name, value]) => `  ${JSON.stringify(name)}: ${JSON.stringify(value)}`);
  return `{\n${fields.join(",\n")},\n  "areas": {\n${areas.join(",\n")}\n  }\n}\n`;
}

/** Writes `text` to the new file `path`, mode 0600; refused when the file exists. */
export function write_export_file(path: string, text: string): void {
  const fd = openSync(path, "wx", EXPORT_FILE_MODE);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
