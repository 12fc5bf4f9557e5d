/**
 * A reproducible tar archive for the image's one layer (scripts/image.ts): POSIX ustar
 * (POSIX.1-2001 `pax` without extended headers), each entry's owner, mode and time given by the
 * caller rather than read from the disk, entries sorted by name, no user or group names, no
 * access or change times. The same entries give the same bytes on any machine, whoever runs the
 * build: nothing needs root to own a file as the container's user.
 */
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";

export type TarEntry =
  | { path: string; type: "dir"; mode: number; uid: number; gid: number }
  /** `source`: a file on this machine whose bytes are copied; `content`: the bytes themselves. */
  | { path: string; type: "file"; mode: number; uid: number; gid: number; source: string }
  | { path: string; type: "file"; mode: number; uid: number; gid: number; content: Uint8Array };

const BLOCK = 512;
const encoder = new TextEncoder();

/** An octal number, zero-padded to `width - 1` digits and NUL-terminated (ustar's numeric fields). */
function octal(value: number, width: number): string {
  const digits = value.toString(8);
  if (digits.length > width - 1) throw new Error(`tar: ${value} does not fit in a ${width}-byte field`);
  return `${digits.padStart(width - 1, "0")}\0`;
}

/** The ustar name and prefix fields for `name` (a name over 100 bytes is split at a slash). */
function split_name(name: string): { name: string; prefix: string } {
  if (encoder.encode(name).length <= 100) return { name, prefix: "" };
  for (let cut = name.indexOf("/"); cut !== -1; cut = name.indexOf("/", cut + 1)) {
    const prefix = name.slice(0, cut);
    const rest = name.slice(cut + 1);
    if (encoder.encode(prefix).length <= 155 && encoder.encode(rest).length <= 100) return { name: rest, prefix };
  }
  throw new Error(`tar: the path ${name} is too long for ustar`);
}

/** The 512-byte header of one entry (POSIX.1-1988 ustar, as tar(5) lays it out). */
function header(name: string, type: "0" | "5", mode: number, uid: number, gid: number, size: number, mtime: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const put = (offset: number, text: string) => block.set(encoder.encode(text), offset);
  const parts = split_name(name);
  put(0, parts.name);
  put(100, octal(mode, 8));
  put(108, octal(uid, 8));
  put(116, octal(gid, 8));
  put(124, octal(size, 12));
  put(136, octal(mtime, 12));
  put(148, "        "); // the checksum counts its own field as spaces
  put(156, type);
  put(257, "ustar\0");
  put(263, "00");
  put(345, parts.prefix);
  const sum = block.reduce((total, byte) => total + byte, 0);
  put(148, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

/**
 * Writes `entries` to `out` with every time set to `mtime` (seconds since the epoch), sorted by
 * path so that a directory precedes what it holds. Paths are relative (`etc/passwd`); a
 * directory's name ends with a slash in the archive. Returns the archive's size in bytes.
 */
export function write_tar(out: string, entries: readonly TarEntry[], mtime: number): number {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) if (sorted[i]!.path === sorted[i - 1]!.path) throw new Error(`tar: ${sorted[i]!.path} is listed twice`);
  const fd = openSync(out, "w", 0o644);
  let written = 0;
  const write = (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    written += bytes.length;
  };
  try {
    for (const entry of sorted) {
      if (entry.path.startsWith("/") || entry.path.split("/").includes("..")) throw new Error(`tar: ${entry.path} must be relative, without ..`);
      if (entry.type === "dir") {
        write(header(`${entry.path}/`, "5", entry.mode, entry.uid, entry.gid, 0, mtime));
        continue;
      }
      const content = "content" in entry ? entry.content : readFileSync(entry.source);
      write(header(entry.path, "0", entry.mode, entry.uid, entry.gid, content.length, mtime));
      write(content);
      const pad = (BLOCK - (content.length % BLOCK)) % BLOCK;
      if (pad > 0) write(new Uint8Array(pad));
    }
    // The end of the archive: two zero blocks.
    write(new Uint8Array(2 * BLOCK));
  } finally {
    closeSync(fd);
  }
  return written;
}
