/** A worker thread of the argon2id pool on Bun: a Web Worker running worker.ts (spawn.ts). */
import type { Argon2Answer, Argon2Job } from "./jobs.ts";

/** Bun's Worker has ref/unref (like a timer); the DOM typings in scope do not declare them. */
type BunWorker = Worker & { ref(): void; unref(): void };

/**
 * Where the worker module is. In the compiled executable every module lives under Bun's
 * embedded root (/$bunfs/root, B:/~BUN/root on Windows) and a worker is found by its path from
 * the build root, which scripts/build.ts makes the repository root by listing it as an entrypoint.
 */
function worker_specifier(): string {
  const compiled = import.meta.url.includes("/$bunfs/") || import.meta.url.includes("~BUN");
  return compiled ? "./src/platform/argon2/worker.ts" : new URL("./worker.ts", import.meta.url).href;
}

export function spawn_worker(events: { message(answer: Argon2Answer): void; error(message: string): void; exit(): void }) {
  const worker = new Worker(worker_specifier()) as BunWorker;
  worker.onmessage = (event: MessageEvent<Argon2Answer>) => events.message(event.data);
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    events.error(event.message);
  };
  worker.addEventListener("close", () => events.exit());
  return {
    post: (job: Argon2Job) => worker.postMessage(job),
    terminate: () => worker.terminate(),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
}
