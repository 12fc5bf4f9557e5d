/**
 * libsodium's argon2id functions for ffi.ts on Deno, through `Deno.dlopen`. Loading a library
 * needs the ffi permission: `--allow-ffi` for any library, or `--allow-ffi=<path>` for the file
 * itself, in which case the library is opened by that path (libraries.ts lists where it is looked
 * for; the path the permission names must be the path opened). Without the permission this is
 * null, asked without a prompt, and passwords.ts uses hash-wasm.
 */
import { library_candidates } from "../libraries.ts";

const SYMBOLS = {
  sodium_init: { parameters: [], result: "i32" },
  crypto_pwhash_argon2id_strbytes: { parameters: [], result: "usize" },
  crypto_pwhash_argon2id_str: { parameters: ["buffer", "buffer", "u64", "u64", "usize"], result: "i32" },
  crypto_pwhash_argon2id_str_verify: { parameters: ["buffer", "buffer", "u64"], result: "i32" },
} as const;

/** The path to open `name` by: the name itself with every library allowed, else the first candidate path allowed; null when none is. */
export function permitted_path(name: string): string | null {
  if (Deno.permissions.querySync({ name: "ffi" }).state === "granted") return name;
  return library_candidates(name).find((path) => Deno.permissions.querySync({ name: "ffi", path }).state === "granted") ?? null;
}

/** The library, or null when no permission allows it; throws when it does not load. Lengths go to Deno as bigints. */
export function open_sodium(name: string) {
  const path = permitted_path(name);
  if (path === null) return null;
  const sodium = Deno.dlopen(path, SYMBOLS).symbols;
  return {
    sodium_init: () => sodium.sodium_init(),
    crypto_pwhash_argon2id_strbytes: () => sodium.crypto_pwhash_argon2id_strbytes(),
    crypto_pwhash_argon2id_str: (out: Uint8Array<ArrayBuffer>, pwd: Uint8Array<ArrayBuffer>, pwdlen: number, opslimit: number, memlimit: number) =>
      sodium.crypto_pwhash_argon2id_str(out, pwd, BigInt(pwdlen), BigInt(opslimit), BigInt(memlimit)),
    crypto_pwhash_argon2id_str_verify: (str: Uint8Array<ArrayBuffer>, pwd: Uint8Array<ArrayBuffer>, pwdlen: number) =>
      sodium.crypto_pwhash_argon2id_str_verify(str, pwd, BigInt(pwdlen)),
  };
}
