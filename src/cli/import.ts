/**
 * `idp import FILE [--dry-run]`: a file of `idp export` (export.ts) into the database
 * (app/transfer/import.ts): everything into an empty database; into one with data, the rows
 * that clash (same username, e-mail address, group, client_id, …) are skipped and reported.
 * `import_own_file` is the command's work, for a dispatcher that also reads other formats.
 */
import { readFileSync, statSync } from "node:fs";
import { ExportFileError, MAX_FILE_BYTES, parse_export } from "../app/transfer/format.ts";
import { check_secrets, import_document, type ImportReport } from "../app/transfer/import.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { import_foreign } from "./import_foreign.ts";
import type { Writer } from "./output.ts";
import { command, type ArgsOf, type CommandSpec, type OptionSpecs } from "./spec.ts";

const IMPORT = {
  summary: "import a file of idp export (or, with --from, of another provider) into the database, skipping conflicts",
  positionals: ["file"],
  options: {
    from: {
      type: "string",
      value: "keycloak|auth0|csv",
      help: "the file comes from another provider: a Keycloak realm export, an Auth0 NDJSON export, or a CSV/JSON table (import_foreign.ts)",
    },
    dry_run: { type: "boolean", help: "check the file and print what would be imported and skipped, without writing" },
  },
  notes: `The whole file is checked before anything is written: its size (256 MiB at most), that it is
an idp export of format version 1, every row of every table, and that the upstreams' client
secrets and sealed signing keys in it decrypt with this IDP_SECRET_KEY (the key of the server
that exported them): when one does not, nothing is imported.

A row is skipped when the database already has it: the same id, username, e-mail address, group
name, client_id, upstream, resource, SAML entity ID, application (or its URL), service account,
passkey credential or POSIX number; so are the rows that belong to a skipped one (the passkeys
and memberships of a skipped user). Signing keys are imported only into a database without any.
The report lists every skipped row and why; the rows kept are written in one transaction.
Importing the same file again imports nothing.

With --from, the file comes from another provider. Users keep their password: bcrypt,
PBKDF2-SHA256/SHA512 (Keycloak's), scrypt and argon2i/argon2d hashes are verified at sign-in and
replaced by argon2id then; hashes with absurd cost parameters are refused. Every row is checked
first: a file with a bad row imports nothing and the errors name the rows (line numbers, or JSON
paths). Existing usernames, groups and client IDs are left as they are and reported as skipped.
The CSV header is username,email,email_verified,name,given_name,family_name,password_hash,groups
(groups separated by ;); a JSON array of objects with the same members is read too. At most
64 MiB and 200,000 users a file.`,
} as const satisfies CommandSpec<OptionSpecs>;

/** Reads, checks and imports (or, with dry_run, only plans) the export file `file`; CliError when the file is refused. */
export async function import_own_file(ctx: CliContext, file: string, options: { dry_run: boolean }): Promise<ImportReport> {
  let text: string;
  try {
    if (statSync(file).size > MAX_FILE_BYTES) throw new CliError(`${file}: larger than ${MAX_FILE_BYTES} bytes; nothing was imported`);
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const config = ctx.config();
  let report: ImportReport;
  try {
    const document = parse_export(text);
    check_secrets(document, config.federation.secret_key);
    report = await import_document(await ctx.store(), document, options);
  } catch (error) {
    if (error instanceof ExportFileError) throw new CliError(`${file}: ${error.message}; nothing was imported`);
    throw error;
  }
  if (!options.dry_run) {
    const rows = Object.fromEntries(Object.entries(report.tables).map(([table, counts]) => [table, counts.imported]));
    await ctx.audit({ type: "data_imported", details: { rows, skipped: report.skipped.length, exported_at: report.exported_at, issuer: report.issuer } });
  }
  return report;
}

/** The report as text. */
export function write_import_report(write: Writer, file: string, report: ImportReport): void {
  write(report.dry_run ? `Dry run: nothing was written. Importing ${file} would give:\n` : `Imported ${file}:\n`);
  write(`  exported ${new Date(report.exported_at * 1000).toISOString()} from ${report.issuer} by idp ${report.idp_version}\n`);
  for (const [table, counts] of Object.entries(report.tables)) {
    if (counts.in_file === 0) continue;
    write(`  ${table.padEnd(24)} ${counts.imported} imported${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ""}\n`);
  }
  if (report.skipped.length === 0) return;
  write(`Skipped (${report.skipped.length}):\n`);
  for (const skipped of report.skipped) write(`  ${skipped.table} ${skipped.row}: ${skipped.reason}\n`);
}

const IMPORT_RUN = async (ctx: CliContext, { positionals, flags }: ArgsOf<typeof IMPORT>): Promise<void> => {
  const file = positionals[0]!;
  if (flags.from !== undefined) return import_foreign(ctx, flags.from, file, { dry_run: flags.dry_run === true });
  const report = await import_own_file(ctx, file, { dry_run: flags.dry_run === true });
  ctx.emit({ file, ...report }, (write) => write_import_report(write, file, report));
};

/** `idp import`. */
export const import_command = command(IMPORT, IMPORT_RUN);
