/**
 * The backup file: a manifest and the database copy, in one file (README, "Backups"):
 *
 *     idp-backup/1\n                      the format and its version, one line
 *     {"format":1,…,"payload":{…}}\n      the manifest, one line of JSON
 *     <payload.bytes bytes>               the copy (store/backup.ts), as is or encrypted
 *
 * The manifest says which provider version wrote it (`idp_version`), when (`created_at`), the
 * kind of database and the copy's form (`database`, `payload.type`: a SQLite file or a pg_dump
 * custom-format archive), its schema migration level (`schema`), and the payload's size and
 * SHA-256 as stored (`payload.bytes`, `payload.sha256`), so a truncated or altered file is
 * refused before anything is restored. Anyone who can rewrite the file can rewrite the checksum
 * too: it finds damage, not an attacker.
 *
 * `--encrypt` seals the payload with AES-256-GCM (NIST SP 800-38D), which authenticates it: the
 * key is derived from IDP_SECRET_KEY with HKDF-SHA256 (RFC 5869) and a random salt per file, the
 * IV is random, and the additional data is the first line and the manifest without its
 * `payload` member, so neither can be changed unnoticed. The payload is then the ciphertext
 * followed by the 16-byte tag; the manifest stays readable (`idp backup verify` checks the
 * checksum of a file without the key).
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, type Hash } from "node:crypto";
import { closeSync, constants, createReadStream, createWriteStream, fsyncSync, linkSync, openSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { z } from "zod";

/** The first line of every backup file. */
export const MAGIC = "idp-backup/1";
/** The file name extension the server's scheduled backups use. */
export const EXTENSION = ".idpbackup";

const HKDF_INFO = "idp backup 1";
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The first line and the manifest are read from this many bytes at most. */
const HEAD_LIMIT = 64 * 1024;
/** Backup files hold password hashes and signing keys: the owner's only, as the SQLite files are. */
export const BACKUP_FILE_MODE = 0o600;

const Encryption = z.strictObject({
  alg: z.literal("A256GCM"),
  kdf: z.literal("HKDF-SHA256"),
  salt: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
  iv: z.string().regex(/^[A-Za-z0-9_-]{16}$/),
});

const ManifestSchema = z.strictObject({
  format: z.literal(1),
  idp_version: z.string().min(1).max(100),
  created_at: z.iso.datetime(),
  database: z.enum(["sqlite", "postgres"]),
  schema: z.number().int().min(0),
  encryption: Encryption.nullable(),
  payload: z.strictObject({
    type: z.enum(["sqlite3", "pg_dump-custom"]),
    bytes: z.number().int().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
});

export type Manifest = z.output<typeof ManifestSchema>;
/** What the writer says of the copy; the rest of the manifest is worked out as it is written. */
export type ManifestHead = Pick<Manifest, "idp_version" | "created_at" | "database" | "schema"> & { payload_type: Manifest["payload"]["type"] };

/** A backup file that cannot be used: damaged, altered, of another format, or for another key. */
export class BackupError extends Error {
  override name = "BackupError";
}

/** The additional data of the encryption: the first line and the manifest without `payload`, in a fixed member order. */
function additional_data(manifest: Omit<Manifest, "payload">): Buffer {
  const { format, idp_version, created_at, database, schema, encryption } = manifest;
  return Buffer.from(`${MAGIC}\n${JSON.stringify({ format, idp_version, created_at, database, schema, encryption })}`, "utf8");
}

function derive_key(secret: Buffer, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, salt, HKDF_INFO, 32));
}

/** A pass-through that hashes what goes by. */
function hashing(hash: Hash): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
}

async function sha256_of(path: string, start = 0, bytes?: number): Promise<string> {
  const hash = createHash("sha256");
  if (bytes === 0) return hash.digest("hex");
  const stream = createReadStream(path, bytes === undefined ? { start } : { start, end: start + bytes - 1 });
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * Writes the backup file `out` from the copy at `payload`, sealed under `secret` (the 32 bytes of
 * IDP_SECRET_KEY) when given. Never replaces an existing file: it is written beside `out` and
 * linked in at the end, so `out` is either absent or whole.
 */
export async function write_backup_file(out: string, head: ManifestHead, payload: string, secret: Buffer | null): Promise<Manifest> {
  const partial = `${out}.partial-${randomBytes(6).toString("hex")}`;
  const sealed = `${partial}.sealed`;
  try {
    let stored = payload;
    let encryption: Manifest["encryption"] = null;
    let sha256: string;
    if (secret !== null) {
      const salt = randomBytes(SALT_BYTES);
      const iv = randomBytes(IV_BYTES);
      encryption = { alg: "A256GCM", kdf: "HKDF-SHA256", salt: salt.toString("base64url"), iv: iv.toString("base64url") };
      const cipher = createCipheriv("aes-256-gcm", derive_key(secret, salt), iv);
      cipher.setAAD(additional_data({ format: 1, idp_version: head.idp_version, created_at: head.created_at, database: head.database, schema: head.schema, encryption }));
      const hash = createHash("sha256");
      await pipeline(createReadStream(payload), cipher, hashing(hash), createWriteStream(sealed, { flags: "wx", mode: BACKUP_FILE_MODE }));
      const tag = cipher.getAuthTag();
      hash.update(tag);
      const fd = openSync(sealed, "a");
      try {
        writeSync(fd, tag);
      } finally {
        closeSync(fd);
      }
      sha256 = hash.digest("hex");
      stored = sealed;
    } else {
      sha256 = await sha256_of(payload);
    }
    const manifest: Manifest = {
      format: 1,
      idp_version: head.idp_version,
      created_at: head.created_at,
      database: head.database,
      schema: head.schema,
      encryption,
      payload: { type: head.payload_type, bytes: statSync(stored).size, sha256 },
    };
    const fd = openSync(partial, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, BACKUP_FILE_MODE);
    try {
      writeSync(fd, `${MAGIC}\n${JSON.stringify(manifest)}\n`);
    } finally {
      closeSync(fd);
    }
    await pipeline(createReadStream(stored), createWriteStream(partial, { flags: "a" }));
    const sync = openSync(partial, "r");
    try {
      fsyncSync(sync);
    } finally {
      closeSync(sync);
    }
    try {
      linkSync(partial, out);
    } catch (error) {
      if ((error as { code?: unknown }).code === "EEXIST") throw new BackupError(`${out} already exists: choose another name (a backup never replaces a file)`);
      throw error;
    }
    return manifest;
  } finally {
    rmSync(partial, { force: true });
    rmSync(sealed, { force: true });
  }
}

/** A backup file's manifest, and where its payload starts. */
export type OpenedBackup = { path: string; manifest: Manifest; offset: number };

/**
 * Reads the first line and the manifest and checks the file's size against it: a file cut short
 * (an interrupted copy) or with bytes after the payload is refused here, before its checksum.
 */
export function open_backup_file(path: string): OpenedBackup {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    throw new BackupError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let head: Buffer;
  let size: number;
  try {
    size = statSync(path).size;
    head = Buffer.alloc(Math.min(HEAD_LIMIT, size));
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const first = head.indexOf(0x0a);
  if (first === -1 || head.subarray(0, first).toString("latin1") !== MAGIC) throw new BackupError(`${path} is not an idp backup file (it does not start with "${MAGIC}")`);
  const second = head.indexOf(0x0a, first + 1);
  if (second === -1) throw new BackupError(`${path} is cut short: its manifest is incomplete`);
  let manifest: Manifest;
  try {
    manifest = ManifestSchema.parse(JSON.parse(head.subarray(first + 1, second).toString("utf8")));
  } catch (error) {
    throw new BackupError(`${path} has an unreadable manifest: ${error instanceof z.ZodError ? z.prettifyError(error).replaceAll("\n", " ") : (error as Error).message}`);
  }
  const offset = second + 1;
  const found = size - offset;
  if (found < manifest.payload.bytes) throw new BackupError(`${path} is cut short: its payload has ${found} of ${manifest.payload.bytes} bytes`);
  if (found > manifest.payload.bytes) throw new BackupError(`${path} has ${found - manifest.payload.bytes} bytes more than its manifest says: it was altered or appended to`);
  return { path, manifest, offset };
}

/** Checks the payload against the manifest's SHA-256; raises BackupError on a mismatch. */
export async function check_checksum(backup: OpenedBackup): Promise<void> {
  const actual = await sha256_of(backup.path, backup.offset, backup.manifest.payload.bytes);
  if (actual !== backup.manifest.payload.sha256) {
    throw new BackupError(
      `${backup.path} does not match its checksum (SHA-256 ${actual}, the manifest says ${backup.manifest.payload.sha256}): the file is damaged or was altered`,
    );
  }
}

/**
 * Writes the payload, decrypted when it is encrypted, to the new file `out` (the owner's only).
 * An encrypted payload needs `secret`; one that does not decrypt under it (another key, or
 * altered) raises BackupError and leaves no file.
 */
export async function extract_payload(backup: OpenedBackup, secret: Buffer | null, out: string): Promise<void> {
  const { manifest, offset, path } = backup;
  const write = () => createWriteStream(out, { flags: "wx", mode: BACKUP_FILE_MODE });
  try {
    if (manifest.encryption === null) {
      await pipeline(createReadStream(path, { start: offset, end: offset + manifest.payload.bytes - 1 }), write());
      return;
    }
    if (secret === null) throw new BackupError(`${path} is encrypted: set IDP_SECRET_KEY to the key it was made with`);
    if (manifest.payload.bytes <= TAG_BYTES) throw new BackupError(`${path} is damaged: its encrypted payload is no longer than its tag`);
    const tag = Buffer.alloc(TAG_BYTES);
    const fd = openSync(path, "r");
    try {
      readSync(fd, tag, 0, TAG_BYTES, offset + manifest.payload.bytes - TAG_BYTES);
    } finally {
      closeSync(fd);
    }
    const { salt, iv } = manifest.encryption;
    const decipher = createDecipheriv("aes-256-gcm", derive_key(secret, Buffer.from(salt, "base64url")), Buffer.from(iv, "base64url"));
    decipher.setAAD(additional_data(manifest));
    decipher.setAuthTag(tag);
    try {
      await pipeline(createReadStream(path, { start: offset, end: offset + manifest.payload.bytes - TAG_BYTES - 1 }), decipher, write());
    } catch (error) {
      if (error instanceof BackupError) throw error;
      throw new BackupError(`${path} does not decrypt with IDP_SECRET_KEY: it was made with another key, or it was altered`);
    }
  } catch (error) {
    rmSync(out, { force: true });
    throw error;
  }
}
