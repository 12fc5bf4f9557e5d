/**
 * Where the system's shared libraries (libsodium) are looked for by path. The system's loader
 * finds a library by its name alone, but a permission that names a file (Deno's
 * `--allow-ffi=<path>`) must be met by opening that file: the adapter that opens it
 * (argon2/ffi_deno.ts) and the script that grants it (scripts/deno/permissions.ts) list the same
 * places, from here.
 */
import { arch, platform } from "node:os";
import { isAbsolute, join } from "node:path";

/** The folders of the system's libraries, most specific first (Debian's multiarch folder, Homebrew's). */
export function library_dirs(): string[] {
  if (platform() === "darwin") return ["/opt/homebrew/lib", "/usr/local/lib", "/usr/lib"];
  const triplet = arch() === "arm64" ? "aarch64-linux-gnu" : "x86_64-linux-gnu";
  return [`/usr/lib/${triplet}`, `/lib/${triplet}`, "/usr/local/lib", "/usr/lib64", "/lib64", "/usr/lib", "/lib"];
}

/** The paths a library name may be at: itself when it is a path, else the name in each folder. */
export function library_candidates(name: string): string[] {
  return isAbsolute(name) ? [name] : library_dirs().map((dir) => join(dir, name));
}
