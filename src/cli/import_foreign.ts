/**
 * `idp import --from keycloak|auth0|csv FILE [--dry-run]` (the command: import.ts): users (with their password hashes),
 * groups and clients from another provider (oidc/foreign_import/). The file's size is checked
 * before it is read; every row is checked before anything is written, and a file with a bad row
 * writes nothing (the errors name the rows). `--dry-run` reports what would be created.
 */
import { stat, readFile } from "node:fs/promises";
import { apply_plan, type ImportReport } from "../oidc/foreign_import/apply.ts";
import { read_auth0 } from "../oidc/foreign_import/auth0.ts";
import { read_keycloak } from "../oidc/foreign_import/keycloak.ts";
import { IMPORT_SOURCES, MAX_IMPORT_BYTES, MAX_IMPORT_USERS, unreadable, type ImportPlan, type ImportSource } from "../oidc/foreign_import/plan.ts";
import { read_table } from "../oidc/foreign_import/table.ts";
import type { CliContext } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import type { Writer } from "./output.ts";

const READERS: Record<ImportSource, (text: string) => ImportPlan> = { keycloak: read_keycloak, auth0: read_auth0, csv: read_table };

async function read_plan(from: ImportSource, file: string): Promise<ImportPlan> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (size > MAX_IMPORT_BYTES) return unreadable(from, `${size} bytes: at most ${MAX_IMPORT_BYTES} are read (split the file)`);
  const text = new TextDecoder("utf-8", { fatal: false }).decode(await readFile(file));
  const plan = READERS[from](text);
  if (plan.users.length > MAX_IMPORT_USERS) return unreadable(from, `${plan.users.length} users: at most ${MAX_IMPORT_USERS} in one file (split it)`);
  return plan;
}

function write_report(write: Writer, report: ImportReport): void {
  const would = report.dry_run ? "Would create" : "Created";
  if (report.errors.length > 0) {
    write(`Nothing imported: ${report.errors.length} row(s) cannot be read. Fix them and run again.\n`);
    for (const error of report.errors) write(`  error ${error.at}: ${error.message}\n`);
  } else {
    write(
      `${would} ${report.users_created.length} user(s), ${report.groups_created.length} group(s), ${report.clients_created.length} client(s) from ${report.source}${report.dry_run ? " (dry run: nothing written)" : ""}.\n`,
    );
    if (report.users_with_foreign_hash > 0) {
      write(`${report.users_with_foreign_hash} user(s) keep their password hash until their next sign-in replaces it with argon2id.\n`);
    }
    if (report.users_without_password.length > 0) {
      write(`Without a password (they reset it: idp users send-reset): ${report.users_without_password.join(", ")}\n`);
    }
    for (const client of report.clients_created) {
      if (client.client_secret !== undefined) write(`  client ${client.client_id}: new secret ${client.client_secret} (shown once; configure it in the application)\n`);
    }
  }
  for (const skipped of report.skipped) write(`  skipped ${skipped.at} ${skipped.name}: ${skipped.reason}\n`);
  for (const ignored of report.ignored) write(`  ignored ${ignored.at}: ${ignored.message}\n`);
}

/** Runs an import from another provider; exits 1 (CliError) when the file had errors. */
export async function import_foreign(ctx: CliContext, from: string, file: string, options: { dry_run: boolean }): Promise<void> {
  if (!(IMPORT_SOURCES as readonly string[]).includes(from)) throw new UsageError(`--from must be one of ${IMPORT_SOURCES.join(", ")}, not ${JSON.stringify(from)}`);
  const plan = await read_plan(from as ImportSource, file);
  const store = await ctx.store();
  const report = await apply_plan(store, plan, { dry_run: options.dry_run, now: Math.floor(Date.now() / 1000) });
  if (report.written) {
    await ctx.audit({
      type: "users_imported",
      details: { from, users: report.users_created.length, groups: report.groups_created.length, clients: report.clients_created.length, skipped: report.skipped.length },
    });
  }
  ctx.emit(report, (write) => write_report(write, report));
  if (report.errors.length > 0) throw new CliError(`${file}: ${report.errors.length} row(s) with errors, nothing imported`);
}
