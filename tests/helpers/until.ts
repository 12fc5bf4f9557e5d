import { setTimeout as sleep } from "node:timers/promises";

/** Polls `probe` every 20 ms until it returns something other than undefined; fails after `ms`. */
export async function until<T>(probe: () => T | undefined, ms = 15_000, what = "the condition"): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
