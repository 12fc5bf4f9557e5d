/**
 * Starting one worker thread of the argon2id pool (pool.ts), the runtime's way: a Web Worker on
 * Bun (spawn_bun.ts), a node:worker_threads Worker on Deno (spawn_deno.ts), whose Web Workers
 * cannot be unref'd and would keep a finished CLI command alive. Chosen once by which.ts's RUNTIME.
 */
import { RUNTIME } from "../which.ts";
import type { Argon2Answer, Argon2Job } from "./jobs.ts";

/** What the pool hears from a worker. */
export type WorkerEvents = {
  message(answer: Argon2Answer): void;
  /** It failed (could not load, threw). */
  error(message: string): void;
  /** It exited. */
  exit(): void;
};

/** A running worker: jobs in, and whether it keeps the process alive (ref) while idle (unref). */
export type PoolWorker = {
  post(job: Argon2Job): void;
  terminate(): void;
  ref(): void;
  unref(): void;
};

type SpawnAdapter = { spawn_worker(events: WorkerEvents): PoolWorker };

const adapter: SpawnAdapter = RUNTIME === "deno" ? await import("./spawn_deno.ts") : await import("./spawn_bun.ts");

/** A new worker thread running the jobs of jobs.ts, reporting to `events`. */
export const spawn_worker: (events: WorkerEvents) => PoolWorker = adapter.spawn_worker;
