/**
 * argon2id through the system's libsodium (`libsodium.so.23`, Debian libsodium23), for
 * passwords.ts. Both calls are synchronous and slow by design at the default parameters (far
 * more CPU than anything else in a request), so passwords.ts only calls them from worker threads
 * (jobs.ts), never the JS thread. The library is opened by each runtime's foreign function
 * interface: `bun:ffi` (ffi_bun.ts) or `Deno.dlopen` when `--allow-ffi` grants it (ffi_deno.ts).
 *
 * Why libsodium: it picks an AVX2/AVX-512 argon2 block function at run time, so it verifies a
 * hash at the default parameters with less CPU than Bun.password (Zig's portable argon2),
 * hash-wasm (WebAssembly) or Debian's libargon2 (its portable reference code):
 * bench/argon2/index.ts, figures in bench/RESULTS.md, "Password hashing".
 *
 * The strings are standard PHC strings ($argon2id$v=19$m=...,t=...,p=...$salt$hash) in both
 * directions: libsodium verifies Bun.password's and hash-wasm's hashes, and they verify its.
 */
import { RUNTIME } from "../which.ts";

/** Sonames tried in order (Linux, then macOS Homebrew's layout). */
export const LIBSODIUM_NAMES = ["libsodium.so.23", "libsodium.23.dylib"] as const;

/** crypto_pwhash_argon2id_STRBYTES: a PHC string fits in 127 bytes plus the terminating NUL. */
const STRBYTES = 128;

/** The libsodium functions we call, as each runtime's adapter hands them over. */
type Sodium = {
  sodium_init(): number;
  crypto_pwhash_argon2id_strbytes(): number | bigint;
  crypto_pwhash_argon2id_str(out: Uint8Array<ArrayBuffer>, pwd: Uint8Array<ArrayBuffer>, pwdlen: number, opslimit: number, memlimit: number): number;
  crypto_pwhash_argon2id_str_verify(str: Uint8Array<ArrayBuffer>, pwd: Uint8Array<ArrayBuffer>, pwdlen: number): number;
};

/** What each runtime's adapter provides: the library's symbols, or null (or a throw) when it cannot open `name`. */
type SodiumAdapter = { open_sodium(name: string): Sodium | null };

const adapter: SodiumAdapter = RUNTIME === "deno" ? await import("./ffi_deno.ts") : await import("./ffi_bun.ts");

export type Argon2Ffi = {
  /** True when `password` matches the PHC string; false for a wrong password or a malformed string. */
  verify(password: string, hash: string): boolean;
  /** A new PHC string (16-byte random salt, 32-byte tag, p=1). Throws when libsodium refuses. */
  hash(password: string, memory_kib: number, time_cost: number): string;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();
// bun:ffi needs a non-empty buffer for a pointer argument; the length passed is still 0.
const EMPTY = new Uint8Array(1);

/** Opens libsodium and checks it (null when missing, not permitted, too old, or failing to initialise). */
export function open_argon2_ffi(names: readonly string[] = LIBSODIUM_NAMES): Argon2Ffi | null {
  for (const name of names) {
    try {
      const sodium = adapter.open_sodium(name);
      if (sodium === null || sodium.sodium_init() < 0) continue;
      if (Number(sodium.crypto_pwhash_argon2id_strbytes()) !== STRBYTES) continue;
      return wrap(sodium);
    } catch {
      // Not found, or a libsodium without argon2id (before 1.0.13): try the next name.
    }
  }
  return null;
}

function wrap(sodium: Sodium): Argon2Ffi {
  return {
    verify(password, hash) {
      const str = encoder.encode(hash + "\0");
      // libsodium reads at most STRBYTES; a longer or NUL-containing string is not a valid hash.
      if (str.length > STRBYTES || str.indexOf(0) !== str.length - 1) return false;
      const pwd = password.length > 0 ? encoder.encode(password) : EMPTY;
      return sodium.crypto_pwhash_argon2id_str_verify(str, pwd, password.length > 0 ? pwd.length : 0) === 0;
    },
    hash(password, memory_kib, time_cost) {
      const out = new Uint8Array(STRBYTES);
      const pwd = password.length > 0 ? encoder.encode(password) : EMPTY;
      const status = sodium.crypto_pwhash_argon2id_str(out, pwd, password.length > 0 ? pwd.length : 0, time_cost, memory_kib * 1024);
      if (status !== 0) throw new Error(`libsodium argon2id: cannot hash with m=${memory_kib} KiB, t=${time_cost}`);
      return decoder.decode(out.subarray(0, out.indexOf(0)));
    },
  };
}
