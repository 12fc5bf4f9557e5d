/**
 * What a promise rejected with, awaited the normal way.
 *
 * Do not use bun:test's `expect(promise).resolves` / `.rejects`. Bun waits for such a promise by
 * spinning the event loop synchronously inside the matcher (oven-sh/bun#14950). When a
 * `setImmediate` callback is what settles the promise, the wait can then last until some
 * unrelated wake-up of the loop: up to ~30 s once the GC timer is in its slow mode
 * (oven-sh/bun#39268). Our SQLite store settles its calls from `setImmediate` (group commit),
 * and Playwright's calls are affected too. That is how a browser test timed out in CI.
 * tests/helpers/settle.test.ts keeps those matchers out of the suite.
 */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}
