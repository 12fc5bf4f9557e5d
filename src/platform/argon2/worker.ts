/**
 * Worker thread of the argon2id pool on Bun (a Web Worker, spawn_bun.ts): runs the jobs (jobs.ts)
 * off the JS thread.
 *
 * The handler is set before anything is loaded: jobs.ts waits for its runtime adapter (a
 * top-level await), and a message that arrived before the handler was set would be lost.
 * Listed as a second entrypoint in scripts/build.ts so the compiled executable embeds it.
 */
import type { Argon2Job } from "./jobs.ts";

declare var self: Worker;

const jobs = import("./jobs.ts");

self.onmessage = async (event: MessageEvent<Argon2Job>) => {
  const { answer } = await jobs;
  self.postMessage(await answer(event.data));
};
