/**
 * `idp backup --out FILE [--encrypt]` and `idp backup verify FILE`: a consistent copy of the
 * database (DATABASE_URL) while the server runs, in a backup file (app/backup/file.ts), and the
 * checks a restore makes, without restoring. `idp restore` is restore.ts.
 */
import { create_backup, verify_backup } from "../app/backup/backup.ts";
import { BackupError, type Manifest } from "../app/backup/file.ts";
import { CLI_BUSY_TIMEOUT_MS, type CliContext } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import type { Writer } from "./output.ts";
import { command, group, type ArgsOf, type CommandSpec, type OptionSpecs } from "./spec.ts";

/** A backup that cannot be made or used is the command's failure (exit 1), its message as it is. */
export async function backup_errors<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof BackupError) throw new CliError(error.message);
    throw error;
  }
}

/** The manifest as the text output shows it. */
export function write_manifest(write: Writer, manifest: Manifest): void {
  const database = manifest.database === "sqlite" ? "SQLite" : "PostgreSQL";
  write(`  taken:     ${manifest.created_at} by idp ${manifest.idp_version}\n`);
  write(`  database:  ${database}, schema ${manifest.schema}\n`);
  write(`  payload:   ${manifest.payload.bytes} bytes, SHA-256 ${manifest.payload.sha256}\n`);
  write(`  encrypted: ${manifest.encryption === null ? "no" : "yes (AES-256-GCM, IDP_SECRET_KEY)"}\n`);
}

const CREATE = {
  summary: "copy the database (DATABASE_URL) into a backup file, consistently while the server runs",
  options: {
    out: { type: "string", value: "FILE", required: true, help: "the backup file to write (refused if it exists; written 0600)" },
    encrypt: { type: "boolean", help: "encrypt it with IDP_SECRET_KEY (AES-256-GCM), for copies that leave the machine" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function create(ctx: CliContext, { flags }: ArgsOf<typeof CREATE>): Promise<void> {
  if (flags.out === undefined) throw new UsageError("missing --out FILE");
  const out = flags.out;
  const config = ctx.config();
  const manifest = await backup_errors(() => create_backup(config, out, { encrypt: flags.encrypt, env: ctx.io.env, busy_timeout: CLI_BUSY_TIMEOUT_MS }));
  ctx.emit({ file: out, manifest }, (write) => {
    write(`Backup written to ${out}\n`);
    write_manifest(write, manifest);
  });
}

const VERIFY = {
  summary: "check a backup file without restoring it: size, checksum, decryption and the database copy inside",
  positionals: ["file"],
} as const satisfies CommandSpec<OptionSpecs>;

async function verify(ctx: CliContext, { positionals }: ArgsOf<typeof VERIFY>): Promise<void> {
  const file = positionals[0]!;
  const verified = await backup_errors(() => verify_backup(ctx.config(), file, ctx.io.env));
  ctx.emit(verified, (write) => {
    write(`${verified.file} is sound:\n`);
    write_manifest(write, verified.manifest);
    write(`  checksum:  ok\n`);
    if (verified.decrypted !== null) write(`  decrypts:  ${verified.decrypted ? "yes" : "not checked (IDP_SECRET_KEY is not set)"}\n`);
    write(`  database:  ${verified.database_check}\n`);
  });
}

/** `idp backup` (`create` when no command word follows) and `idp backup verify`. */
export const backup_group = group({
  summary: "back up the database into a file, or check a backup file",
  commands: { create: command(CREATE, create), verify: command(VERIFY, verify) },
  default: "create",
  notes: `SQLite is copied with VACUUM INTO, PostgreSQL with pg_dump --format=custom (PostgreSQL's
client tools must be on the PATH, of the server's major version or newer; without them the command
says what to run instead). Both copies are consistent while servers keep writing.

The file holds a one-line manifest (the idp version, the schema migration level, the time, the
size and SHA-256 of the copy) and the copy; the format is described in README, "Backups". It holds
password hashes and the signing keys (sealed when IDP_SECRET_KEY is set): keep it like the
database. --encrypt seals the copy with a key derived from IDP_SECRET_KEY; keep that key apart
from the backups, a backup cannot be opened without it.

verify exits with 1 when the file is cut short, altered, does not decrypt with IDP_SECRET_KEY, or
holds a damaged database. Restore with idp restore FILE.`,
});
