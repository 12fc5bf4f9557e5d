/**
 * The SQLite files at rest. The database holds the signing keys (in clear unless IDP_SECRET_KEY
 * seals them, oidc/keys/sealed_keys.ts), password hashes and TOTP secrets: no other local user
 * may read it, whatever the process's umask (022 would make it `-rw-r--r--`).
 *
 * - A directory we create is 0700; an existing one is left as the operator made it.
 * - The database file is created 0600 before SQLite opens it (O_EXCL, so a file that appears
 *   meanwhile is not taken over), so there is no moment at which another user could open it.
 * - SQLite gives the `-wal` and `-shm` files it creates the mode of the database file (os_unix.c,
 *   `findCreateFileMode`, and the shared-memory file's `fchmod`): 0600 as well. Files left with
 *   wider modes by an earlier version are narrowed to 0600 at every open.
 *
 * `sqlite_file_warnings` names what is still readable by group or others (a file this process
 * does not own cannot be changed by it): `idp config check` and the start-up log print it.
 */
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** Owner read and write only. */
export const SQLITE_FILE_MODE = 0o600;
/** Owner only: the directory of a database we create. */
export const SQLITE_DIR_MODE = 0o700;

/** The database file and the files SQLite keeps beside it in WAL mode. */
export function sqlite_files(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`];
}

/** Creates the directory (0700) and the database file (0600) when missing; narrows existing files to 0600. */
export function prepare_sqlite_files(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: SQLITE_DIR_MODE });
  try {
    closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, SQLITE_FILE_MODE));
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") throw error;
  }
  restrict_sqlite_files(path);
}

/** chmod 0600 of each of the files that exists with a wider mode; a file we cannot change is left (and warned about). */
export function restrict_sqlite_files(path: string): void {
  for (const file of sqlite_files(path)) {
    try {
      if ((statSync(file).mode & 0o777) !== SQLITE_FILE_MODE) chmodSync(file, SQLITE_FILE_MODE);
    } catch {
      // Missing (no -wal yet), or owned by another user: sqlite_file_warnings reports the latter.
    }
  }
}

/** One line per database file readable or writable by group or others, naming its mode and the fix. */
export function sqlite_file_warnings(path: string): string[] {
  const warnings: string[] = [];
  for (const file of sqlite_files(path)) {
    let mode: number;
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) {
      warnings.push(
        `SQLite file ${file} is readable by group or others (mode ${mode.toString(8).padStart(4, "0")}); it holds the signing keys and the accounts: chmod 600 ${file}`,
      );
    }
  }
  return warnings;
}
