/**
 * A small pool of worker threads running worker.ts, so libsodium's synchronous argon2id
 * (slow by design: bench/RESULTS.md, "Password hashing") never blocks the JS thread. Workers
 * start on first use, one job each at a time; the queue in front of them is bounded, and `run`
 * answers null when it is full (the caller then uses Bun.password, which has its own thread
 * pool). Idle workers are unref'd, so they never keep a CLI command or a test process alive.
 *
 * A worker that fails (cannot load, crashes) breaks the pool: its jobs and every later one are
 * answered with an error, and passwords.ts falls back to Bun.password for them.
 */
import type { Argon2Answer, Argon2Job } from "./worker.ts";

type Job = Argon2Job extends infer J ? (J extends Argon2Job ? Omit<J, "id"> : never) : never;
type Pending = { job: Argon2Job; resolve: (answer: Argon2Answer) => void };
/** Bun's Worker has ref/unref (like a timer); the DOM typings in scope do not declare them. */
type BunWorker = Worker & { ref(): void; unref(): void };
type Slot = { worker: BunWorker; current: Pending | null };

/**
 * Where the worker module is. In the compiled executable every module lives under Bun's
 * embedded root (/$bunfs/root, B:/~BUN/root on Windows) and a worker is found by its path from
 * the build root, which scripts/build.ts makes the repository root by listing it as an entrypoint.
 */
function worker_specifier(): string {
  const compiled = import.meta.url.includes("/$bunfs/") || import.meta.url.includes("~BUN");
  return compiled ? "./src/platform/argon2/worker.ts" : new URL("./worker.ts", import.meta.url).href;
}

export class Argon2Pool {
  readonly #size: number;
  readonly #max_queued: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  #next_id = 1;
  #broken: string | null = null;

  constructor(size: number, max_queued: number) {
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
      const pending = { job: { ...job, id } as Argon2Job, resolve };
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
    const worker = new Worker(worker_specifier()) as BunWorker;
    const slot: Slot = { worker, current: null };
    worker.unref();
    worker.onmessage = (event: MessageEvent<Argon2Answer>) => {
      const done = slot.current;
      // An answer must be the one for the job this worker holds: a mix-up would hand one
      // login another login's verdict, so it breaks the pool instead (Bun.password from then on).
      if (done === null || event.data.id !== done.job.id) return this.#fail("argon2 worker answered out of order");
      slot.current = null;
      worker.unref();
      done?.resolve(event.data);
      const next = this.#queue.shift();
      if (next) this.#start(slot, next);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.#fail(`argon2 worker failed: ${event.message}`);
    };
    worker.addEventListener("close", () => {
      if (!this.#broken) this.#fail("argon2 worker exited");
    });
    this.#slots.push(slot);
    return slot;
  }

  #start(slot: Slot, pending: Pending): void {
    slot.current = pending;
    slot.worker.ref();
    slot.worker.postMessage(pending.job);
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
