/**
 * Whether this process can write a SQLite database file, asked before it is opened: SQLite's own
 * words for a file it cannot write ("unable to open database file", "attempt to write a readonly
 * database") name neither the file nor the fix. In WAL mode (connection.ts) SQLite writes the
 * file and creates two more beside it, `<file>-wal` and `<file>-shm`, so the directory must be
 * writable too. Permissions are asked with access(2), as the kernel will answer the open: an
 * ACL or a read-only file system counts, and root passes.
 */
import { accessSync, constants, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";

function allowed(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

function kind(path: string): "file" | "directory" | "other" | null {
  try {
    const stat = statSync(path);
    return stat.isFile() ? "file" : stat.isDirectory() ? "directory" : "other";
  } catch {
    return null;
  }
}

/** Who "this process" is, in the problem's words. */
function who(): string {
  const uid = process.getuid?.();
  return uid === undefined ? "this process" : `this process (uid ${uid})`;
}

/**
 * Why the SQLite database at `path` cannot be written, naming the path and the fix; null when it
 * can (or for `:memory:`). Missing directories are fine when their nearest existing ancestor is
 * writable (the store creates them).
 */
export function sqlite_write_problem(path: string): string | null {
  if (path === ":memory:") return null;
  const file = resolve(path);
  const dir = dirname(file);
  const name = basename(file);
  const fix = `Fix: give the user the server runs as read and write access to the file and write access to its directory (e.g. chown idp ${dir} ${file}*; chmod u+rwx ${dir}; chmod u+rw ${file}*), or point DATABASE_URL at a writable place. SQLite runs in WAL mode: besides the file it creates ${name}-wal and ${name}-shm in the same directory.`;
  const lead = `the SQLite database ${file} is not writable by ${who()}`;
  if (kind(dir) === null) {
    let ancestor = dirname(dir);
    while (kind(ancestor) === null && dirname(ancestor) !== ancestor) ancestor = dirname(ancestor);
    if (kind(ancestor) !== "directory") return `${lead}: ${ancestor} is not a directory. ${fix}`;
    return allowed(ancestor, constants.W_OK | constants.X_OK) ? null : `${lead}: its directory ${dir} does not exist and cannot be created (${ancestor} is not writable). ${fix}`;
  }
  if (kind(dir) !== "directory") return `${lead}: ${dir} is not a directory. ${fix}`;
  const files = [file, `${file}-wal`, `${file}-shm`];
  for (const each of files) {
    const found = kind(each);
    if (found !== null && found !== "file") return `${lead}: ${each} is not a regular file. ${fix}`;
    if (found === "file" && !allowed(each, constants.R_OK | constants.W_OK)) return `${lead}: ${each === file ? "the file" : each} is not readable and writable for it. ${fix}`;
  }
  // A file that is missing (the database itself on first start, the WAL files after each clean
  // close) is created in the directory.
  if (files.some((each) => kind(each) === null) && !allowed(dir, constants.W_OK | constants.X_OK)) {
    return `${lead}: its directory ${dir} is not writable, so ${files
      .filter((each) => kind(each) === null)
      .map((each) => basename(each))
      .join(", ")} cannot be created there. ${fix}`;
  }
  return null;
}
