/**
 * User passwords: argon2id (OWASP Password Storage Cheat Sheet: argon2id,
 * m=19456 KiB, t=2, p=1 as the minimum — the config default).
 *
 * Two implementations of the same standard PHC strings ($argon2id$v=19$m=...,t=...,p=...$salt$hash),
 * each verifying the other's hashes:
 * - "libsodium": the system's libsodium (argon2/ffi.ts) on a small pool of worker threads
 *   (argon2/pool.ts), markedly cheaper per verification than Bun.password (bench/argon2,
 *   bench/RESULTS.md "Password hashing"). Chosen when libsodium loads.
 * - "bun": Bun.password: when libsodium is missing; for a stored hash libsodium is not given
 *   (anything but argon2id v=19 with p=1); and for a job the pool cannot take (queue full,
 *   worker failed to load or crashed).
 *
 * The choice is config `argon2.impl` (IDP_ARGON2_IMPL, read by src/app/config.ts: this runtime
 * seam reads no environment), applied by `configure_argon2` at every entry point before the first
 * hash (server start, the CLI's config load); code that never configures it gets "auto" at its
 * first hash. "auto" uses libsodium when it loads, else Bun.password; "bun" forces Bun.password;
 * "libsodium" requires libsodium (an error at start when it does not load). Any other value is a
 * configuration error.
 */
import { availableParallelism } from "node:os";
import { LIBSODIUM_NAMES, open_argon2_ffi } from "./argon2/ffi.ts";
import { Argon2Pool } from "./argon2/pool.ts";

export type Argon2Params = { memory_kib: number; time_cost: number };

/** One argon2id implementation; `verify` never throws (false for a malformed hash). */
export type Argon2Impl = {
  readonly name: "libsodium" | "bun";
  verify(password: string, hash: string): Promise<boolean>;
  hash(password: string, params: Argon2Params): Promise<string>;
};

const bun_impl: Argon2Impl = {
  name: "bun",
  async verify(password, hash) {
    try {
      return await Bun.password.verify(password, hash, "argon2id");
    } catch {
      return false;
    }
  },
  hash(password, params) {
    return Bun.password.hash(password, {
      algorithm: "argon2id",
      memoryCost: params.memory_kib,
      timeCost: params.time_cost,
    });
  },
};

// What libsodium takes: argon2id v=19, one lane; anything else goes to Bun.password.
const LIBSODIUM_HASH = /^\$argon2id\$v=19\$m=\d+,t=\d+,p=1\$/;
// Jobs waiting for a worker, per worker, before new ones spill over to Bun.password.
const MAX_QUEUED_PER_WORKER = 64;

/** The libsodium implementation over `pool` (exported for tests). */
export function libsodium_impl(pool: Argon2Pool): Argon2Impl {
  let reported = false;
  /** Says once, on stderr, that the pool broke and every later check uses Bun.password. */
  const report_broken = (): void => {
    if (reported || pool.broken === null) return;
    reported = true;
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: "error", msg: "argon2id worker pool stopped; using Bun.password from now on", reason: pool.broken })}\n`,
    );
  };
  return {
    get name() {
      return pool.broken === null ? "libsodium" : "bun";
    },
    async verify(password, hash) {
      if (!LIBSODIUM_HASH.test(hash)) return bun_impl.verify(password, hash);
      const answer = await pool.run({ op: "verify", password, hash });
      if (answer?.ok !== undefined) return answer.ok;
      report_broken();
      return bun_impl.verify(password, hash);
    },
    async hash(password, params) {
      const answer = await pool.run({ op: "hash", password, ...params });
      if (answer?.hash !== undefined) return answer.hash;
      report_broken();
      return bun_impl.hash(password, params);
    },
  };
}

export type Argon2ImplSetting = "auto" | "bun" | "libsodium";

/** The implementation for a setting; `libraries` are the names libsodium is looked up by (tests pass others). */
export function choose_impl(setting: string | undefined, libraries: readonly string[] = LIBSODIUM_NAMES): Argon2Impl {
  if (setting === "bun") return bun_impl;
  if (setting !== undefined && setting !== "" && setting !== "auto" && setting !== "libsodium") {
    throw new Error(`IDP_ARGON2_IMPL must be "bun", "libsodium" or "auto", not ${JSON.stringify(setting)}`);
  }
  if (!open_argon2_ffi(libraries)) {
    if (setting === "libsodium") throw new Error("IDP_ARGON2_IMPL=libsodium, but libsodium (libsodium.so.23) does not load");
    return bun_impl;
  }
  const workers = Math.min(availableParallelism(), 4);
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
