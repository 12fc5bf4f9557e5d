/**
 * User passwords: argon2id (OWASP Password Storage Cheat Sheet: argon2id,
 * m=19456 KiB, t=2, p=1 as the minimum — the config default).
 *
 * Three implementations of the same standard PHC strings ($argon2id$v=19$m=...,t=...,p=...$salt$hash),
 * each verifying the others' hashes:
 * - "libsodium": the system's libsodium (argon2/ffi.ts) on a small pool of worker threads
 *   (argon2/pool.ts), markedly cheaper per verification than the others (bench/argon2,
 *   bench/RESULTS.md "Password hashing"). Chosen when libsodium loads (on Deno: when
 *   `--allow-ffi` grants it).
 * - "bun": Bun.password (argon2/password_bun.ts), on Bun: when libsodium is missing; for a stored
 *   hash libsodium is not given (anything but argon2id v=19 with p=1); and for a job the pool
 *   cannot take (queue full, worker failed to load or crashed).
 * - "hash-wasm": argon2id in WebAssembly (argon2/wasm.ts), on Deno in the same three cases, on
 *   the pool's worker threads (on the JS thread only for a job they cannot take).
 *
 * The choice is config `argon2.impl` (IDP_ARGON2_IMPL, read by src/app/config.ts: this runtime
 * seam reads no environment), applied by `configure_argon2` at every entry point before the first
 * hash (server start, the CLI's config load); code that never configures it gets "auto" at its
 * first hash. "auto" uses libsodium when it loads, else the runtime's own ("bun" or "hash-wasm");
 * "bun" forces Bun.password (refused on Deno); "libsodium" requires libsodium (an error at start
 * when it does not load). Any other value is a configuration error.
 */
import { availableParallelism } from "node:os";
import { LIBSODIUM_NAMES, open_argon2_ffi } from "./argon2/ffi.ts";
import type { Argon2Backend } from "./argon2/jobs.ts";
import { Argon2Pool } from "./argon2/pool.ts";
import { RUNTIME } from "./which.ts";

export type Argon2Params = { memory_kib: number; time_cost: number };

/** One argon2id implementation; `verify` never throws (false for a malformed hash). */
export type Argon2Impl = {
  readonly name: "libsodium" | "bun" | "hash-wasm";
  verify(password: string, hash: string): Promise<boolean>;
  hash(password: string, params: Argon2Params): Promise<string>;
};

/** Bun.password, loaded only on Bun (the module names the runtime's global). */
const bun_impl: Argon2Impl | null =
  RUNTIME === "bun"
    ? await import("./argon2/password_bun.ts").then(({ bun_password }) => ({
        name: "bun" as const,
        verify: bun_password.verify,
        hash: bun_password.hash,
      }))
    : null;

/** hash-wasm on the JS thread: on Deno, what the pool cannot take. Loaded on first use. */
const wasm_in_thread: Argon2Impl = {
  name: "hash-wasm",
  async verify(password, hash) {
    const { wasm_argon2 } = await import("./argon2/wasm.ts");
    return wasm_argon2.verify(password, hash);
  },
  async hash(password, params) {
    const { wasm_argon2 } = await import("./argon2/wasm.ts");
    return wasm_argon2.hash(password, params.memory_kib, params.time_cost);
  },
};

/** The runtime's own argon2id: what is used without libsodium, and for what libsodium does not take. */
const own_impl: Argon2Impl = bun_impl ?? wasm_in_thread;

// What libsodium takes: argon2id v=19, one lane; anything else goes to the runtime's own.
const LIBSODIUM_HASH = /^\$argon2id\$v=19\$m=\d+,t=\d+,p=1\$/;
// Jobs waiting for a worker, per worker, before new ones spill over to the runtime's own.
const MAX_QUEUED_PER_WORKER = 64;

/**
 * Jobs on `pool`; a stored hash `takes` refuses, and every job once the pool is full or broken,
 * go to `fallback`.
 */
function pooled_impl(pool: Argon2Pool, takes: RegExp | null, fallback: Argon2Impl): Argon2Impl {
  let reported = false;
  /** Says once, on stderr, that the pool broke and every later check uses the fallback. */
  const report_broken = (): void => {
    if (reported || pool.broken === null) return;
    reported = true;
    const msg = `argon2id worker pool stopped; using ${fallback.name === "bun" ? "Bun.password" : `${fallback.name} on the JS thread`} from now on`;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: "error", msg, reason: pool.broken })}\n`);
  };
  const name: Argon2Backend = pool.backend;
  return {
    get name() {
      return pool.broken === null ? name : fallback.name;
    },
    async verify(password, hash) {
      if (takes !== null && !takes.test(hash)) return fallback.verify(password, hash);
      const answer = await pool.run({ op: "verify", password, hash });
      if (answer?.ok !== undefined) return answer.ok;
      report_broken();
      return fallback.verify(password, hash);
    },
    async hash(password, params) {
      const answer = await pool.run({ op: "hash", password, ...params });
      if (answer?.hash !== undefined) return answer.hash;
      report_broken();
      return fallback.hash(password, params);
    },
  };
}

/** The libsodium implementation over `pool` (exported for tests). */
export function libsodium_impl(pool: Argon2Pool): Argon2Impl {
  return pooled_impl(pool, LIBSODIUM_HASH, own_impl);
}

export type Argon2ImplSetting = "auto" | "bun" | "libsodium";

function pool_size(): number {
  return Math.min(availableParallelism(), 4);
}

/** The implementation for a setting; `libraries` are the names libsodium is looked up by (tests pass others). */
export function choose_impl(setting: string | undefined, libraries: readonly string[] = LIBSODIUM_NAMES): Argon2Impl {
  if (setting === "bun") {
    if (bun_impl === null) throw new Error('IDP_ARGON2_IMPL=bun: Bun.password exists only on Bun; here use "auto" (libsodium when it loads, else hash-wasm) or "libsodium"');
    return bun_impl;
  }
  if (setting !== undefined && setting !== "" && setting !== "auto" && setting !== "libsodium") {
    throw new Error(`IDP_ARGON2_IMPL must be "bun", "libsodium" or "auto", not ${JSON.stringify(setting)}`);
  }
  const workers = pool_size();
  if (!open_argon2_ffi(libraries)) {
    if (setting === "libsodium") {
      throw new Error(`IDP_ARGON2_IMPL=libsodium, but libsodium (libsodium.so.23) does not load${bun_impl === null ? " (or --allow-ffi does not grant it)" : ""}`);
    }
    return bun_impl ?? pooled_impl(new Argon2Pool(workers, workers * MAX_QUEUED_PER_WORKER, "hash-wasm"), null, wasm_in_thread);
  }
  return libsodium_impl(new Argon2Pool(workers, workers * MAX_QUEUED_PER_WORKER));
}

let chosen: Argon2Impl | undefined;

/** The implementation in use: the one configured, else "auto" at first use. */
function current(): Argon2Impl {
  chosen ??= choose_impl("auto");
  return chosen;
}

/**
 * Applies the configuration's `argon2.impl` (IDP_ARGON2_IMPL, validated by config.ts): called
 * by `serve` and the CLI before the first hash. "libsodium" that does not load throws. Returns
 * the name of the implementation in use, for the start log.
 */
export function configure_argon2(setting: Argon2ImplSetting): Argon2Impl["name"] {
  if (chosen === undefined || (setting !== "auto" && chosen.name !== setting)) chosen = choose_impl(setting);
  return chosen.name;
}

/** The implementation in use (tests spy on its methods); chosen at first use. */
export const argon2_impl: Argon2Impl = {
  get name() {
    return current().name;
  },
  verify: (password, hash) => current().verify(password, hash),
  hash: (password, params) => current().hash(password, params),
};

/** An argon2id PHC string ($argon2id$v=19$m=...,t=...,p=1$salt$hash). */
export function hash_password(password: string, params: Argon2Params): Promise<string> {
  return argon2_impl.hash(password, params);
}

/** True when the password matches the hash; false for a wrong password or a malformed hash. */
export function verify_password(password: string, hash: string): Promise<boolean> {
  return argon2_impl.verify(password, hash);
}

// One dummy hash per parameter set, built on first use, so an unknown user costs one argon2id
// verification with the same parameters (and the same implementation) as a real one.
const dummy_hashes = new Map<string, Promise<string>>();

function dummy_hash(params: Argon2Params): Promise<string> {
  const key = `${params.memory_kib}:${params.time_cost}`;
  let hash = dummy_hashes.get(key);
  if (!hash) {
    hash = hash_password(crypto.randomUUID(), params);
    dummy_hashes.set(key, hash);
  }
  return hash;
}

/**
 * Verifies a login attempt in the same time whether or not the user exists: with no stored hash
 * it verifies against a dummy hash and returns false, so response time does not reveal which
 * usernames exist (OWASP Authentication Cheat Sheet, "Authentication Responses").
 */
export async function verify_password_or_dummy(password: string, hash: string | null, params: Argon2Params): Promise<boolean> {
  if (hash === null) {
    await verify_password(password, await dummy_hash(params));
    return false;
  }
  return verify_password(password, hash);
}

/** Builds the dummy hash ahead of the first login (call at start so the first miss is not slower). */
export async function warm_dummy_hash(params: Argon2Params): Promise<void> {
  await dummy_hash(params);
}
