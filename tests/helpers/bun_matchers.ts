/**
 * The matchers bun:test adds to Jest's, for the npm `expect` on Deno (test_api_deno.ts passes
 * them to `expect.extend`): the ones the suite uses and their plain siblings, each saying what
 * Bun's says when it fails. tests/helpers/test_api.test.ts runs them on both runtimes.
 */
import type { ExpectationResult, MatcherContext } from "expect";

type Check = (received: unknown, expected: unknown) => boolean;

/** A matcher from a check and the words of its failure ("Expected to start with: …"). */
function matcher(name: string, check: Check, words: string | null): (this: MatcherContext, received: unknown, expected?: unknown) => ExpectationResult {
  return function (this: MatcherContext, received: unknown, expected?: unknown): ExpectationResult {
    const pass = check(received, expected);
    const { matcherHint, printExpected, printReceived } = this.utils;
    const hint = matcherHint(name, undefined, words === null ? "" : undefined, { isNot: this.isNot });
    const wanted = words === null ? "" : `${this.isNot ? `${words.replace(/^Expected/, "Expected not")}` : words}: ${printExpected(expected)}\n`;
    return { pass, message: () => `${hint}\n\n${wanted}Received: ${printReceived(received)}` };
  };
}

const is_string = (value: unknown): value is string => typeof value === "string";

export const BUN_MATCHERS = {
  toStartWith: matcher("toStartWith", (received, expected) => is_string(received) && received.startsWith(String(expected)), "Expected to start with"),
  toEndWith: matcher("toEndWith", (received, expected) => is_string(received) && received.endsWith(String(expected)), "Expected to end with"),
  toInclude: matcher("toInclude", (received, expected) => is_string(received) && received.includes(String(expected)), "Expected to include"),
  toBeString: matcher("toBeString", (received) => is_string(received), null),
  toBeNumber: matcher("toBeNumber", (received) => typeof received === "number", null),
  toBeBoolean: matcher("toBeBoolean", (received) => typeof received === "boolean", null),
  toBeTrue: matcher("toBeTrue", (received) => received === true, null),
  toBeFalse: matcher("toBeFalse", (received) => received === false, null),
  toBeArray: matcher("toBeArray", (received) => Array.isArray(received), null),
  toBeTypeOf: matcher("toBeTypeOf", (received, expected) => typeof received === expected, "Expected type"),
  toBeOneOf: matcher("toBeOneOf", (received, expected) => Array.isArray(expected) && expected.some((item) => Object.is(item, received)), "Expected to be one of"),
};
