/**
 * A worker thread of the argon2id pool on Deno: a node:worker_threads Worker running
 * worker_thread.ts (spawn.ts). It has the process's permissions; loading its module needs read
 * access to src/ (scripts/deno/permissions.ts grants it).
 */
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Argon2Answer, Argon2Job } from "./jobs.ts";

export function spawn_worker(events: { message(answer: Argon2Answer): void; error(message: string): void; exit(): void }) {
  // A path (the URL's .href, not the URL object: Bun's typings of node:url and the web URL differ).
  const worker = new Worker(fileURLToPath(new URL("./worker_thread.ts", import.meta.url).href));
  worker.on("message", (answer: Argon2Answer) => events.message(answer));
  worker.on("error", (error: Error) => events.error(error.message));
  worker.on("exit", () => events.exit());
  return {
    post: (job: Argon2Job) => worker.postMessage(job),
    terminate: () => void worker.terminate(),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
}
