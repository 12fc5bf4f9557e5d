/**
 * `idp restore FILE` (src/cli/restore.ts): a backup file (file.ts) back into the configured
 * database. Everything that can be checked is checked before the database is touched: the file's
 * size and checksum, that it decrypts (an encrypted one), that it holds a sound copy of the same
 * kind of database, that its schema is not newer than this build knows, and that the database
 * is empty. A non-empty one is replaced only with `force`, and only after its contents were
 * saved as a backup file of their own beside FILE. The restored copy is migrated forward.
 */
import { existsSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Config } from "../../config/schema.ts";
import { check_replaceable, database_kind, install_copy, table_count, type ToolEnv } from "../../store/backup.ts";
import { latest_version } from "../../store/migrations/index.ts";
import { backup_key, create_backup, extract_and_check, private_temp_dir } from "./backup.ts";
import { BackupError, EXTENSION, check_checksum, open_backup_file, type Manifest } from "./file.ts";

export type RestoreOptions = {
  /** Replace a database that is not empty (its contents are saved first). */
  force: boolean;
  /** pg_dump's and pg_restore's environment (PATH). */
  env: ToolEnv;
  busy_timeout?: number;
  now?: () => Date;
};

export type Restored = {
  file: string;
  manifest: Manifest;
  /** Migrations applied after the copy was put in place (a backup of an older version). */
  applied: number[];
  /** The schema version of the database now. */
  version: number;
  /** Where the replaced contents were saved (with `force` on a database that was not empty). */
  saved: string | null;
};

/** `20261128T093000Z`: a time for file names, sortable. */
export function file_stamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z");
}

/** `<dir>/<stem>.idpbackup`, or with `-2`, `-3`… when that exists (two restores within a second). */
function free_name(dir: string, stem: string): string {
  for (let n = 1; ; n++) {
    const path = join(dir, `${stem}${n === 1 ? "" : `-${n}`}${EXTENSION}`);
    if (!existsSync(path)) return path;
  }
}

export async function restore_backup(config: Config, file: string, options: RestoreOptions): Promise<Restored> {
  const backup = open_backup_file(resolve(file));
  const { manifest } = backup;
  await check_checksum(backup);
  const kind = database_kind(config.database_url);
  if (manifest.database !== kind) {
    throw new BackupError(
      `${backup.path} is a backup of a ${manifest.database === "sqlite" ? "SQLite" : "PostgreSQL"} database; DATABASE_URL names a ${kind === "sqlite" ? "SQLite" : "PostgreSQL"} one`,
    );
  }
  if (manifest.schema > latest_version) {
    throw new BackupError(`${backup.path} is at schema ${manifest.schema}, newer than this build knows (${latest_version}): restore it with idp ${manifest.idp_version} or later`);
  }
  const tables = await table_count(config.database_url, { env: options.env, busy_timeout: options.busy_timeout });
  if (tables > 0 && !options.force) {
    throw new BackupError(
      `the database (DATABASE_URL) is not empty (${tables} tables): restore into an empty database, or add --force to replace its contents (they are saved as a backup file first)`,
    );
  }
  const work = private_temp_dir();
  try {
    const { path } = await extract_and_check(backup, backup_key(config), work, options.env);
    let saved: string | null = null;
    if (tables > 0) {
      await check_replaceable(config.database_url);
      const now = options.now?.() ?? new Date();
      saved = free_name(dirname(backup.path), `idp-pre-restore-${file_stamp(now)}`);
      await create_backup(config, saved, { encrypt: backup_key(config) !== null, env: options.env, busy_timeout: options.busy_timeout, now: () => now });
    }
    try {
      const result = await install_copy(config.database_url, path, tables > 0, { env: options.env });
      return { file: backup.path, manifest, applied: result.applied, version: result.version, saved };
    } catch (error) {
      if (saved !== null) (error as Error).message += ` (the database's contents from before were saved in ${saved}: idp restore --force ${saved} puts them back)`;
      throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
