/**
 * A small pool of worker threads running the argon2id jobs of jobs.ts, so slow-by-design
 * argon2id (bench/RESULTS.md, "Password hashing") never blocks the JS thread. Workers start on
 * first use (spawn.ts: the runtime's kind of thread), one job each at a time; the queue in front
 * of them is bounded, and `run` answers null when it is full (the caller then uses its fallback:
 * Bun.password, which has its own thread pool, or hash-wasm on the JS thread). Idle workers are
 * unref'd, so they never keep a CLI command or a test process alive.
 *
 * A worker that fails (cannot load, crashes) breaks the pool: its jobs and every later one are
 * answered with an error, and passwords.ts falls back for them.
 */
import type { Argon2Answer, Argon2Backend, Argon2Job } from "./jobs.ts";
import { spawn_worker, type PoolWorker } from "./spawn.ts";

type Job = Argon2Job extends infer J ? (J extends Argon2Job ? Omit<J, "id" | "backend"> : never) : never;
type Pending = { job: Argon2Job; resolve: (answer: Argon2Answer) => void };
type Slot = { worker: PoolWorker; current: Pending | null };

export class Argon2Pool {
  readonly #size: number;
  readonly #max_queued: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  #next_id = 1;
  #broken: string | null = null;

  /** `backend`: the argon2id code the workers run (default libsodium). */
  constructor(
    size: number,
    max_queued: number,
    readonly backend: Argon2Backend = "libsodium",
  ) {
    this.#size = Math.max(1, size);
    this.#max_queued = max_queued;
  }

  /** Why the pool stopped working, or null while it works. */
  get broken(): string | null {
    return this.#broken;
  }

  /** Runs one job; null when the queue is full, an answer with `error` when the pool is broken. */
  run(job: Job): Promise<Argon2Answer> | null {
    const id = this.#next_id++;
    if (this.#broken) return Promise.resolve({ id, error: this.#broken });
    const idle = this.#slots.find((slot) => slot.current === null) ?? this.#spawn();
    if (!idle && this.#queue.length >= this.#max_queued) return null;
    return new Promise<Argon2Answer>((resolve) => {
      const pending = { job: { ...job, id, backend: this.backend } as Argon2Job, resolve };
      if (idle) this.#start(idle, pending);
      else this.#queue.push(pending);
    });
  }

  /** Stops every worker; jobs still waiting are answered with an error. */
  close(): void {
    this.#fail("argon2 pool closed");
  }

  #spawn(): Slot | null {
    if (this.#slots.length >= this.#size) return null;
    const slot = { current: null } as Slot;
    slot.worker = spawn_worker({
      message: (answer) => {
        const done = slot.current;
        // An answer must be the one for the job this worker holds: a mix-up would hand one
        // login another login's verdict, so it breaks the pool instead (the fallback from then on).
        if (done === null || answer.id !== done.job.id) return this.#fail("argon2 worker answered out of order");
        slot.current = null;
        slot.worker.unref();
        done.resolve(answer);
        const next = this.#queue.shift();
        if (next) this.#start(slot, next);
      },
      error: (message) => this.#fail(`argon2 worker failed: ${message}`),
      exit: () => {
        if (!this.#broken) this.#fail("argon2 worker exited");
      },
    });
    slot.worker.unref();
    this.#slots.push(slot);
    return slot;
  }

  #start(slot: Slot, pending: Pending): void {
    slot.current = pending;
    slot.worker.ref();
    slot.worker.post(pending.job);
  }

  #fail(reason: string): void {
    this.#broken ??= reason;
    const waiting = [...this.#slots.flatMap((slot) => (slot.current ? [slot.current] : [])), ...this.#queue.splice(0)];
    for (const slot of this.#slots.splice(0)) {
      slot.current = null;
      slot.worker.terminate();
    }
    for (const pending of waiting) pending.resolve({ id: pending.job.id, error: reason });
  }
}
