/**
 * Worker thread of the argon2id pool (passwords.ts): runs libsodium's synchronous argon2id
 * (ffi.ts) off the JS thread. One job at a time; every message gets exactly one answer.
 *
 * Listed as a second entrypoint in scripts/build.ts so the compiled executable embeds it.
 */
import { open_argon2_ffi } from "./ffi.ts";

declare var self: Worker;

export type Argon2Job = { id: number; op: "verify"; password: string; hash: string } | { id: number; op: "hash"; password: string; memory_kib: number; time_cost: number };

/** `ok` for verify, `hash` for hash; `error` when the library is missing or refused. */
export type Argon2Answer = { id: number; ok?: boolean; hash?: string; error?: string };

const argon2 = open_argon2_ffi();

self.onmessage = (event: MessageEvent<Argon2Job>) => {
  const job = event.data;
  let answer: Argon2Answer;
  try {
    if (!argon2) answer = { id: job.id, error: "libsodium did not load in the worker" };
    else if (job.op === "verify") answer = { id: job.id, ok: argon2.verify(job.password, job.hash) };
    else answer = { id: job.id, hash: argon2.hash(job.password, job.memory_kib, job.time_cost) };
  } catch (error) {
    answer = { id: job.id, error: String(error) };
  }
  self.postMessage(answer);
};
