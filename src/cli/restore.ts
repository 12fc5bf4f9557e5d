/**
 * `idp restore FILE [--force]`: a backup file (idp backup) back into the database of
 * DATABASE_URL (app/backup/restore.ts): into an empty database, or with --force in place of a
 * database's contents, which are saved as a backup file first.
 */
import { restore_backup } from "../app/backup/restore.ts";
import { backup_errors, write_manifest } from "./backup.ts";
import { CLI_BUSY_TIMEOUT_MS, type CliContext } from "./context.ts";
import { command, type ArgsOf, type CommandSpec, type OptionSpecs } from "./spec.ts";

const RESTORE = {
  summary: "restore a backup file into the database (DATABASE_URL): empty, or replaced with --force",
  positionals: ["file"],
  options: {
    force: { type: "boolean", help: "replace the contents of a database that is not empty (saved first as idp-pre-restore-<time>.idpbackup beside FILE)" },
  },
  notes: `Before anything is written: the file's size and checksum, that it decrypts with IDP_SECRET_KEY
(when encrypted), that the copy is sound and of the same kind of database as DATABASE_URL, and that
its schema is not newer than this version knows. A backup of an older version is migrated forward.

A database that is not empty is refused unless --force; with --force its contents are first saved
as a backup file (encrypted when IDP_SECRET_KEY is set), which idp restore --force can put back.
Stop the server first: a SQLite file a server has open is refused; on PostgreSQL stop every
instance. On PostgreSQL --force drops every table of the database's current schema (give idp a
database of its own), and the restore needs pg_restore on the PATH.

The restored signing keys are sealed with the IDP_SECRET_KEY of the server they come from, when it
had one: start the server with that key.`,
} as const satisfies CommandSpec<OptionSpecs>;

async function restore(ctx: CliContext, { positionals, flags }: ArgsOf<typeof RESTORE>): Promise<void> {
  const file = positionals[0]!;
  const config = ctx.config();
  const restored = await backup_errors(() => restore_backup(config, file, { force: flags.force, env: ctx.io.env, busy_timeout: CLI_BUSY_TIMEOUT_MS }));
  ctx.emit(restored, (write) => {
    write(`Restored ${restored.file} into the database (DATABASE_URL):\n`);
    write_manifest(write, restored.manifest);
    write(
      restored.applied.length > 0
        ? `Applied migration(s) ${restored.applied.join(", ")}; schema version ${restored.version}.\n`
        : `Schema version ${restored.version}, up to date.\n`,
    );
    if (restored.saved !== null) write(`The database's contents before were saved in ${restored.saved}.\n`);
  });
}

/** `idp restore`. */
export const restore_command = command(RESTORE, restore);
