/**
 * bun:test's API on Deno (loaded by test_api.ts only there): describe/test/hooks on node:test,
 * which Deno runs as its own tests and steps; `expect` from the npm package Bun's is modelled on,
 * extended with Bun's extra matchers (bun_matchers.ts); spyOn and mock from `jest-mock`.
 *
 * What differs from bun:test, and why:
 * - Each test gets Bun's default timeout (5 s) unless it names one, so a test that hangs fails
 *   the same way on both runtimes (node:test has no default).
 * - The body of a skipped `describe` is not run: on Bun it is (to list the skipped tests), but a
 *   group skipped on Deno is usually Bun-only, and its body may call Bun's API.
 * - Deno's sanitizers (leaked ops and resources, `Deno.exit`) are off: Deno runs node:test's
 *   tests with them off, and they could not be on here, since a file's server or store lives
 *   from its `beforeAll` to its `afterAll`, across many tests, which a per-test check would
 *   report as leaks. A server left running shows instead as a run that does not end.
 * - `mock.module` is Bun's alone (Deno cannot replace an ES module once loaded): it throws.
 * - Bun's `expect(value, message)` is kept: a failure then starts with the message.
 * - Deno reports a test as declared here (where node:test is called); the stack of its failure
 *   names the test file's line.
 */
import { after, before, afterEach as node_after_each, beforeEach as node_before_each, describe as node_describe, it as node_it } from "node:test";
import { inspect } from "node:util";
import { expect as jest_expect } from "expect";
import { ModuleMocker } from "jest-mock";
import { BUN_MATCHERS } from "./bun_matchers.ts";
import type { TestApi } from "./test_api.ts";

type Body = (...args: unknown[]) => unknown;
type Options = number | { timeout?: number } | undefined;
type Mode = { skip: boolean; only: boolean; todo: boolean };
type Register = (label: string, fn: Body | undefined, options: Options, mode: Mode) => void;

/** bun test's default timeout for one test (`bun test --timeout`). */
const DEFAULT_TIMEOUT_MS = 5_000;

function timeout_of(options: Options): number | undefined {
  return typeof options === "number" ? options : options?.timeout;
}

/** Runs a body as Bun would: with a `done` callback when it declares one more parameter than it is given. */
function run(fn: Body, args: readonly unknown[]): unknown {
  if (fn.length <= args.length) return fn(...args);
  return new Promise((resolve, reject) => void fn(...args, (error?: unknown) => (error ? reject(error) : resolve(undefined))));
}

/** A label of `.each`, as Bun and Jest format it: printf-style `%s %d %i %f %j %o %O %p %# %%`, or `$name` of an object row. */
export function each_label(label: string, row: unknown, index: number): string {
  const args = Array.isArray(row) ? [...row] : [row];
  if (!Array.isArray(row) && row !== null && typeof row === "object" && !/%[sdifjoOp]/.test(label)) {
    return label.replace(/\$([\w.]+)/g, (_, path: string) => pretty(path.split(".").reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], row)));
  }
  return label.replace(/%([sdifjoOp#%])/g, (token, kind: string) => {
    if (kind === "%") return "%";
    if (kind === "#") return String(index);
    if (args.length === 0) return token;
    const value = args.shift();
    switch (kind) {
      case "s":
        return typeof value === "string" ? value : pretty(value);
      case "d":
      case "i":
        return String(kind === "i" ? Math.trunc(Number(value)) : Number(value));
      case "f":
        return String(Number(value));
      case "j":
        return JSON.stringify(value);
      default:
        return pretty(value);
    }
  });
}

function pretty(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : inspect(value, { depth: 4, breakLength: Number.POSITIVE_INFINITY });
}

/**
 * A bun:test `Test` or `Describe` (callable, with `.skip`, `.only`, `.todo`, `.if`, `.skipIf`,
 * `.each`) over `register`; its arguments may come as (label, fn, options) or (label, options, fn).
 */
function chain(register: Register, mode: Mode, table?: readonly unknown[]): unknown {
  const call = (label: unknown, a?: unknown, b?: unknown) => {
    if (typeof label === "function") return register("", label as Body, undefined, mode);
    const [fn, options] = typeof a === "function" || a === undefined ? [a as Body | undefined, b as Options] : [b as Body | undefined, a as Options];
    if (!table) return register(String(label), fn, options, mode);
    table.forEach((row, index) => {
      const args = Array.isArray(row) ? row : [row];
      register(each_label(String(label), row, index), fn && ((...rest: unknown[]) => run(fn, [...args, ...rest])), options, mode);
    });
  };
  const as = (change: Partial<Mode>) => () => chain(register, { ...mode, ...change }, table);
  return Object.defineProperties(call, {
    skip: { get: as({ skip: true }) },
    only: { get: as({ only: true }) },
    todo: { get: as({ todo: true }) },
    if: { value: (condition: boolean) => chain(register, { ...mode, skip: mode.skip || !condition }, table) },
    skipIf: { value: (condition: boolean) => chain(register, { ...mode, skip: mode.skip || condition }, table) },
    each: { value: (rows: readonly unknown[]) => chain(register, mode, rows) },
  });
}

const register_test: Register = (label, fn, options, mode) => {
  const skip = mode.skip || mode.todo || fn === undefined;
  node_it(label, { skip, only: mode.only, timeout: timeout_of(options) ?? DEFAULT_TIMEOUT_MS }, skip ? () => {} : () => run(fn, []));
};

const register_describe: Register = (label, fn, _options, mode) => {
  const skip = mode.skip || mode.todo || fn === undefined;
  node_describe(label, { skip, only: mode.only }, skip ? () => {} : () => void run(fn, []));
};

/** Matchers whose failures start with `message` (Bun's second argument of `expect`), nested ones (`.not`) too. */
function with_message<T extends object>(matchers: T, message: string): T {
  const prefixed = (error: unknown) => {
    if (error instanceof Error) error.message = `${message}\n\n${error.message}`;
    return error;
  };
  return new Proxy(matchers, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value === "object" && value !== null) return with_message(value, message);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        try {
          const result: unknown = value.apply(target, args);
          return result instanceof Promise
            ? result.catch((error: unknown) => {
                throw prefixed(error);
              })
            : result;
        } catch (error) {
          throw prefixed(error);
        }
      };
    },
  });
}

/** The npm `expect`, which takes one argument, with Bun's optional message as the second. */
function expect_with_message(): typeof jest_expect {
  return new Proxy(jest_expect, {
    apply: (target, _this, [actual, message]: unknown[]) => (typeof message === "string" ? with_message(target(actual), message) : target(actual)),
  });
}

/** A hook of node:test under bun:test's signature: (fn, timeout or { timeout }). */
function hook(node_hook: typeof before) {
  return (fn: Body, options?: Options) => node_hook(() => run(fn, []), { timeout: timeout_of(options) });
}

export function deno_test_api(): TestApi {
  jest_expect.extend(BUN_MATCHERS);
  const mocker = new ModuleMocker(globalThis);
  const mock = Object.assign((implementation?: Body) => mocker.fn(implementation), {
    restore: () => mocker.restoreAllMocks(),
    clearAllMocks: () => mocker.clearAllMocks(),
    module: () => {
      throw new Error("mock.module is Bun's alone: Deno cannot replace a loaded ES module");
    },
  });
  const test = chain(register_test, { skip: false, only: false, todo: false });
  return {
    describe: chain(register_describe, { skip: false, only: false, todo: false }),
    test,
    it: test,
    expect: expect_with_message(),
    beforeAll: hook(before),
    afterAll: hook(after),
    beforeEach: hook(node_before_each),
    afterEach: hook(node_after_each),
    spyOn: (object: object, key: never) => mocker.spyOn(object, key),
    mock,
  } as unknown as TestApi;
}
