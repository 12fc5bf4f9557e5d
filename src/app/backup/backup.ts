/**
 * Taking a backup and checking one: `idp backup`, `idp backup verify` (src/cli/backup.ts) and
 * the server's scheduled backups (schedule.ts). The database's copy is store/backup.ts's, the
 * file around it file.ts's.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { VERSION } from "../../cli/version.ts";
import type { Config } from "../../config/schema.ts";
import { secret_key_bytes } from "../../oidc/crypto/envelope.ts";
import { check_copy, snapshot_database, type ToolEnv } from "../../store/backup.ts";
import { BackupError, check_checksum, extract_payload, open_backup_file, write_backup_file, type Manifest, type OpenedBackup } from "./file.ts";

export type BackupOptions = {
  /** Seal the payload under IDP_SECRET_KEY (file.ts). */
  encrypt: boolean;
  /** pg_dump's environment (PATH). */
  env: ToolEnv;
  /** SQLite: how long to wait for a lock. */
  busy_timeout?: number;
  now?: () => Date;
};

/** The 32 bytes of IDP_SECRET_KEY, or null when it is not set. */
export function backup_key(config: Config): Buffer | null {
  return secret_key_bytes(config.federation.secret_key);
}

/** A private temporary directory (0700), removed by the caller. */
export function private_temp_dir(near?: string): string {
  return mkdtempSync(join(near ?? tmpdir(), ".idp-backup-"));
}

/**
 * Copies the configured database into the new backup file `out`, consistently while the server
 * runs. Refuses `encrypt` without IDP_SECRET_KEY, and an `out` that exists.
 */
export async function create_backup(config: Config, out: string, options: BackupOptions): Promise<Manifest> {
  const key = backup_key(config);
  if (options.encrypt && key === null) {
    throw new BackupError("--encrypt needs IDP_SECRET_KEY (32 bytes, base64url), the key the backup is encrypted with; keep a copy of it apart from the backups");
  }
  const target = resolve(out);
  if (!existsSync(dirname(target))) throw new BackupError(`the directory ${dirname(target)} does not exist`);
  // The copy is made beside the backup (the same file system, which the operator chose for its space).
  const work = private_temp_dir(dirname(target));
  try {
    const copy = join(work, "copy");
    const snapshot = await snapshot_database(config.database_url, copy, { env: options.env, busy_timeout: options.busy_timeout });
    const created_at = (options.now?.() ?? new Date()).toISOString();
    return await write_backup_file(
      target,
      { idp_version: VERSION, created_at, database: snapshot.database, schema: snapshot.schema, payload_type: snapshot.format },
      copy,
      options.encrypt ? key : null,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export type Verified = {
  file: string;
  manifest: Manifest;
  /** Whether the payload was decrypted (null: not encrypted; false: encrypted and IDP_SECRET_KEY unset). */
  decrypted: boolean | null;
  /** What was checked of the database copy, in words. */
  database_check: string;
};

/**
 * The copy inside `backup`, extracted (decrypted) and checked: SQLite's integrity check and its
 * schema against the manifest's, a PostgreSQL dump's table of contents. Returns where it is
 * (inside `work`) and what was checked.
 */
export async function extract_and_check(backup: OpenedBackup, key: Buffer | null, work: string, env: ToolEnv): Promise<{ path: string; database_check: string }> {
  const path = join(work, "payload");
  await extract_payload(backup, key, path);
  const { manifest } = backup;
  let checked: Awaited<ReturnType<typeof check_copy>>;
  try {
    checked = await check_copy(manifest.database, path, { env });
  } catch (error) {
    throw new BackupError(`${backup.path}: ${(error as Error).message}`);
  }
  if (checked.schema !== null && checked.schema !== manifest.schema) {
    throw new BackupError(`${backup.path} says schema ${manifest.schema}, but its database is at schema ${checked.schema}: the manifest was altered`);
  }
  if (manifest.database === "sqlite") return { path, database_check: "SQLite integrity check ok, schema matches the manifest" };
  return { path, database_check: checked.checked ? "pg_restore reads the dump" : "not checked: pg_restore is not on the PATH" };
}

/** `idp backup verify`: everything a restore checks, without restoring. Raises BackupError. */
export async function verify_backup(config: Config, file: string, env: ToolEnv): Promise<Verified> {
  const backup = open_backup_file(resolve(file));
  await check_checksum(backup);
  const key = backup_key(config);
  if (backup.manifest.encryption !== null && key === null) {
    return { file: backup.path, manifest: backup.manifest, decrypted: false, database_check: "not checked: the payload is encrypted and IDP_SECRET_KEY is not set" };
  }
  const work = private_temp_dir();
  try {
    const { database_check } = await extract_and_check(backup, key, work, env);
    return { file: backup.path, manifest: backup.manifest, decrypted: backup.manifest.encryption === null ? null : true, database_check };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
