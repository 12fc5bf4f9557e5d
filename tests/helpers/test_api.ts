/**
 * The test API every test file imports, so `bun test` and `deno test` run the same files:
 * describe, test (it), expect, the hooks, spyOn and mock, with bun:test's signatures and types
 * (`.skip`, `.skipIf`, `.if`, `.each`, a timeout as the third argument).
 *
 * On Bun these are bun:test's own functions, re-exported: Bun still finds the tests, reports them
 * under their file and points a failure at its line. On Deno they are mapped onto node:test, the
 * npm `expect` (with Bun's extra matchers) and `jest-mock`: test_api_deno.ts.
 *
 * A test about one runtime only (its adapter) says so, and is reported as skipped on the other:
 * `describe.skipIf(RUNTIME !== "bun")("… (Bun only: the reason)", …)`.
 *
 * Not named plain `test` (.ts): `deno test` takes a file of that name for a test file.
 */
import type * as BunTest from "bun:test";
import { RUNTIME } from "../../src/platform/which.ts";

export { RUNTIME };

/** The part of bun:test the suite uses; test_api_deno.ts implements the same on Deno. */
export type TestApi = Pick<typeof BunTest, "describe" | "test" | "it" | "expect" | "beforeAll" | "afterAll" | "beforeEach" | "afterEach" | "spyOn" | "mock">;

// "bun:test" cannot be imported statically: Deno cannot resolve it.
const api: TestApi = RUNTIME === "bun" ? await import("bun:test") : (await import("./test_api_deno.ts")).deno_test_api();

export const { describe, test, it, expect, beforeAll, afterAll, beforeEach, afterEach, spyOn, mock } = api;
export type { Mock } from "bun:test";
