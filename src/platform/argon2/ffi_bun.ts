/** libsodium's argon2id functions for ffi.ts on Bun, through `bun:ffi`. */
import { dlopen } from "bun:ffi";

const SYMBOLS = {
  sodium_init: { args: [], returns: "i32" },
  crypto_pwhash_argon2id_strbytes: { args: [], returns: "u64" },
  crypto_pwhash_argon2id_str: { args: ["ptr", "ptr", "u64", "u64", "u64"], returns: "i32" },
  crypto_pwhash_argon2id_str_verify: { args: ["ptr", "ptr", "u64"], returns: "i32" },
} as const;

/** The library by name (the system's loader searches for it); throws when it does not load. */
export function open_sodium(name: string) {
  return dlopen(name, SYMBOLS).symbols as unknown as {
    sodium_init(): number;
    crypto_pwhash_argon2id_strbytes(): number | bigint;
    crypto_pwhash_argon2id_str(out: Uint8Array<ArrayBuffer>, pwd: Uint8Array<ArrayBuffer>, pwdlen: number, opslimit: number, memlimit: number): number;
    crypto_pwhash_argon2id_str_verify(str: Uint8Array<ArrayBuffer>, pwd: Uint8Array<ArrayBuffer>, pwdlen: number): number;
  };
}
