/**
 * Worker thread of the argon2id pool on Deno (a node:worker_threads Worker, spawn_deno.ts, which
 * unlike Deno's Web Worker can be unref'd): runs the jobs (jobs.ts) off the JS thread.
 * The listener is set before anything is loaded, as in worker.ts. `deno compile` embeds this
 * file through its `--include` (scripts/deno/compile.ts).
 */
import { parentPort } from "node:worker_threads";
import type { Argon2Job } from "./jobs.ts";

const port = parentPort;
if (port === null) throw new Error("worker_thread.ts runs as a worker thread only");
const jobs = import("./jobs.ts");
port.on("message", async (job: Argon2Job) => {
  const { answer } = await jobs;
  port.postMessage(await answer(job));
});
