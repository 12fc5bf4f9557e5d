/**
 * The jobs of the argon2id worker pool (pool.ts) and how a worker thread answers them, whichever
 * way the runtime starts its threads (worker.ts, worker_thread.ts). One job at a time per worker;
 * every job gets exactly one answer.
 */
import { open_argon2_ffi } from "./ffi.ts";

/** The argon2id code a job runs: libsodium (ffi.ts) or hash-wasm (wasm.ts). */
export type Argon2Backend = "libsodium" | "hash-wasm";

export type Argon2Job = { id: number; backend: Argon2Backend } & (
  | { op: "verify"; password: string; hash: string }
  | { op: "hash"; password: string; memory_kib: number; time_cost: number }
);

/** `ok` for verify, `hash` for hash; `error` when the library is missing or refused. */
export type Argon2Answer = { id: number; ok?: boolean; hash?: string; error?: string };

type Code = {
  verify(password: string, hash: string): boolean | Promise<boolean>;
  hash(password: string, memory_kib: number, time_cost: number): string | Promise<string>;
};

// Each backend is opened once per thread, on its first job (hash-wasm is only loaded when asked for).
const opened = new Map<Argon2Backend, Promise<Code | null>>();

function open(backend: Argon2Backend): Promise<Code | null> {
  let code = opened.get(backend);
  if (!code) {
    code = backend === "libsodium" ? Promise.resolve(open_argon2_ffi()) : import("./wasm.ts").then((module) => module.wasm_argon2);
    opened.set(backend, code);
  }
  return code;
}

/** The answer to one job (never throws). */
export async function answer(job: Argon2Job): Promise<Argon2Answer> {
  try {
    const code = await open(job.backend);
    if (!code) return { id: job.id, error: `${job.backend} did not load in the worker` };
    if (job.op === "verify") return { id: job.id, ok: await code.verify(job.password, job.hash) };
    return { id: job.id, hash: await code.hash(job.password, job.memory_kib, job.time_cost) };
  } catch (error) {
    return { id: job.id, error: String(error) };
  }
}
