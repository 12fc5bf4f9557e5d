/**
 * The export file (README, "Export and import"): one JSON document,
 *
 *     { "format": "idp-export", "version": 1, "exported_at": <unix seconds>, "issuer": "...",
 *       "idp_version": "...", "areas": { "<area>": { "<table>": [ { <column>: <value>, ... } ] } } }
 *
 * Areas and tables are those of store/rows/transfer.ts, in its order; rows in primary-key order,
 * keys in column order, so two exports of the same data are the same bytes but for
 * `exported_at`. Values are as stored: password and secret hashes, upstream client secrets and
 * sealed signing keys encrypted with IDP_SECRET_KEY. Reading a file checks all of it (size, form,
 * version, every column of every row) before anything is written.
 */
import { z } from "zod";
import type { ColumnKind } from "../../store/codec.ts";
import { TRANSFER_TABLES, type TransferRow, type TransferTable } from "../../store/rows/transfer.ts";

export const FORMAT = "idp-export";
export const FORMAT_VERSION = 1;
/** A file larger than this is refused before it is parsed. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;
/** Export files hold password hashes: the owner's only. */
export const EXPORT_FILE_MODE = 0o600;

export type ExportDocument = {
  format: typeof FORMAT;
  version: typeof FORMAT_VERSION;
  exported_at: number;
  issuer: string;
  idp_version: string;
  areas: Record<string, Record<string, TransferRow[]>>;
};

/** A file that cannot be imported: the message says what and where. */
export class ExportFileError extends Error {}

const json_value: z.ZodType<unknown> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(json_value), z.record(z.string(), json_value)]));

const COLUMN: Record<ColumnKind, z.ZodType<unknown>> = {
  text: z
    .string()
    .max(1024 * 1024)
    .nullable(),
  int: z.number().int().safe().nullable(),
  bool: z.boolean(),
  json: z.union([z.array(json_value), z.record(z.string(), json_value)]).nullable(),
};

function row_schema(entry: TransferTable) {
  const shape: Record<string, z.ZodType<unknown>> = {};
  for (const [column, kind] of Object.entries(entry.columns)) shape[column] = COLUMN[kind];
  return z.strictObject(shape);
}

const ENVELOPE = z.strictObject({
  format: z.literal(FORMAT),
  version: z.number().int(),
  exported_at: z.number().int().nonnegative(),
  issuer: z.string().max(2048),
  idp_version: z.string().max(100),
  areas: z.record(z.string(), z.record(z.string(), z.array(z.unknown()))),
});

/** Checks and types a file's text; ExportFileError naming the first problem found. */
export function parse_export(text: string): ExportDocument {
  if (text.length > MAX_FILE_BYTES) throw new ExportFileError(`the file is larger than ${MAX_FILE_BYTES} bytes`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ExportFileError(`the file is not JSON (cut short?): ${(error as Error).message}`);
  }
  const head = raw as { format?: unknown; version?: unknown } | null;
  if (typeof head !== "object" || head === null || head.format !== FORMAT)
    throw new ExportFileError(`the file is not an idp export (no "format": "${FORMAT}"; a file of another provider takes --from keycloak|auth0|csv)`);
  if (head.version !== FORMAT_VERSION) {
    throw new ExportFileError(
      `the file is of export format version ${String(head.version)}; this idp reads version ${FORMAT_VERSION} (export it again with this version, or import it with the version that wrote it)`,
    );
  }
  // Names first, on the parsed object itself: a "__proto__" key is an own property of JSON.parse's
  // result, which a copy into a new object would lose without a word.
  const areas_in = (raw as { areas?: unknown }).areas;
  if (typeof areas_in === "object" && areas_in !== null && !Array.isArray(areas_in)) {
    for (const [area, tables] of Object.entries(areas_in)) {
      if (!TRANSFER_TABLES.some((t) => t.area === area)) throw new ExportFileError(`areas.${area}: not an area this version imports`);
      if (typeof tables !== "object" || tables === null) continue;
      for (const table of Object.keys(tables)) {
        if (!TRANSFER_TABLES.some((t) => t.area === area && t.table === table)) throw new ExportFileError(`areas.${area}.${table}: not a table this version imports`);
      }
    }
  }
  const envelope = ENVELOPE.safeParse(raw);
  if (!envelope.success) throw new ExportFileError(`the file's envelope is malformed: ${problem(envelope.error)}`);
  const areas: Record<string, Record<string, TransferRow[]>> = {};
  for (const [area, tables] of Object.entries(envelope.data.areas)) {
    for (const [table, rows] of Object.entries(tables)) {
      const entry = TRANSFER_TABLES.find((t) => t.table === table && t.area === area);
      if (entry === undefined) throw new ExportFileError(`areas.${area}.${table}: not a table this version imports`);
      const schema = row_schema(entry);
      const checked: TransferRow[] = [];
      rows.forEach((row, i) => {
        const parsed = schema.safeParse(row);
        if (!parsed.success) throw new ExportFileError(`areas.${area}.${table}[${i}]: ${problem(parsed.error)}`);
        for (const column of entry.primary) {
          if (parsed.data[column] === null || parsed.data[column] === undefined) throw new ExportFileError(`areas.${area}.${table}[${i}].${column}: missing`);
        }
        // A lookup key the file carries (an attribute's name_key) must be the one its row derives.
        for (const [column, derive] of Object.entries(entry.derived ?? {})) {
          if (column in entry.columns && parsed.data[column] !== derive(parsed.data as TransferRow)) {
            throw new ExportFileError(`areas.${area}.${table}[${i}].${column}: is not the key of the row's name`);
          }
        }
        checked.push(parsed.data as TransferRow);
      });
      (areas[area] ??= {})[table] = checked;
    }
  }
  return { ...envelope.data, format: FORMAT, version: FORMAT_VERSION, areas };
}

function problem(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message}`;
}

/** The rows of `entry` in a document (none when the file has no such table). */
export function rows_of(document: ExportDocument, entry: TransferTable): TransferRow[] {
  return document.areas[entry.area]?.[entry.table] ?? [];
}
