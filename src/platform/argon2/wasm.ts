/**
 * argon2id in WebAssembly (hash-wasm), for a runtime without Bun.password where libsodium cannot
 * be opened (Deno without `--allow-ffi`). Standard PHC strings, like libsodium's: a 16-byte
 * random salt, a 32-byte tag, p=1; it verifies any argon2 PHC string, whatever its lanes.
 * Asynchronous in form only: the computation holds the thread it runs on, so passwords.ts runs
 * it on the worker threads of the pool (jobs.ts) and on the JS thread only when they fail.
 *
 * hash-wasm takes no empty password: hashing one throws, and one never verifies (the password
 * policy asks for 8 characters or more, so no account has an empty one).
 */
import { randomBytes } from "node:crypto";
import { argon2Verify, argon2id } from "hash-wasm";

const encoder = new TextEncoder();

export const wasm_argon2 = {
  /** True when `password` matches the PHC string; false for a wrong password or a malformed string. */
  async verify(password: string, hash: string): Promise<boolean> {
    if (password === "") return false;
    try {
      return await argon2Verify({ password: encoder.encode(password), hash });
    } catch {
      return false;
    }
  },
  /** A new PHC string ($argon2id$v=19$m=...,t=...,p=1$salt$hash). */
  async hash(password: string, memory_kib: number, time_cost: number): Promise<string> {
    if (password === "") throw new Error("argon2id (hash-wasm): an empty password cannot be hashed");
    return argon2id({
      password: encoder.encode(password),
      salt: randomBytes(16),
      parallelism: 1,
      iterations: time_cost,
      memorySize: memory_kib,
      hashLength: 32,
      outputType: "encoded",
    });
  },
};
