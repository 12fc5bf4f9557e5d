// The tests run on Bun and on Deno (docs/ARCHITECTURE.md, rule 7 and its note on tests): they
// take their API from tests/helpers/test_api.ts, never from bun:test, and name Bun (`bun:*`,
// the `Bun` global, Bun's import.meta members) only in the files about Bun's own adapters, whose
// Bun parts are skipped on Deno.
import { describe, expect, test } from "../helpers/test_api.ts";
import { BUN_GLOBAL, BUN_IMPORT_META, is_bun_module, load_tree, scan_imports, strip } from "./rules.ts";

/** Files that name Bun on purpose, each for a reason its header gives. */
const ABOUT_BUN = new Set([
  "tests/helpers/test_api.ts", // bun:test itself, on Bun
  "tests/helpers/raw_sqlite.ts", // bun:sqlite on Bun, node:sqlite on Deno
  "tests/http/passwords.test.ts", // libsodium through bun:ffi, Bun.password
  "tests/http/passwords_binary.test.ts", // bun build --compile, Bun.password
  "tests/http/openssl.test.ts", // OpenSSL through bun:ffi
  "tests/security/login_throttle.test.ts", // the wait seen through Bun.sleep
  "tests/runtime/platform.test.ts", // hashes crossing between Bun.password and the Deno adapters
]);
// Its synthetic sources name Bun in strings: it is what proves the checker.
const CHECKER_TESTS = "tests/architecture/";

const line_of = (src: string, index: number) => src.slice(0, index).split("\n").length;

function runtime_names(file: string, src: string): string[] {
  const found = scan_imports(src)
    .filter((imp) => is_bun_module(imp.specifier))
    .map((imp) => `${file}:${imp.line} "${imp.specifier}"`);
  const [, blank] = strip(src);
  for (const pattern of [BUN_GLOBAL, BUN_IMPORT_META]) for (const m of blank.matchAll(pattern)) found.push(`${file}:${line_of(src, m.index)} ${m[0].replace(/\s+/g, "")}`);
  return found;
}

describe("the tests name no runtime but where they are about it", () => {
  const files = Object.entries(load_tree(process.cwd(), "tests")).filter(([file]) => !file.startsWith(CHECKER_TESTS));

  test("the checker finds bun:test, Bun's modules, its global and its import.meta members", () => {
    const src = [
      'import { test } from "bun:test";',
      'import { Database } from "bun:sqlite";',
      "await Bun.sleep(1);",
      "const dir = import.meta.dir;",
      '// Bun.sleep in a comment, "bun:test" in a string',
    ].join("\n");
    expect(runtime_names("x.ts", src)).toEqual(['x.ts:1 "bun:test"', 'x.ts:2 "bun:sqlite"', "x.ts:3 Bun.sleep", "x.ts:4 import.meta.dir"]);
  });

  test("only tests/helpers/test_api.ts imports bun:test", () => {
    const importers = files.filter(([, src]) => scan_imports(src).some((imp) => imp.specifier === "bun:test")).map(([file]) => file);
    expect(importers).toEqual(["tests/helpers/test_api.ts"]);
  });

  test("Bun is named only in the files about its adapters", () => {
    expect(files.filter(([file]) => !ABOUT_BUN.has(file)).flatMap(([file, src]) => runtime_names(file, src))).toEqual([]);
  });

  // playwright-core reads /proc as it loads, which Deno allows only under --allow-all: a test file
  // that loads it fails to load on Deno. tests/helpers/chromium.ts loads it only where it can run.
  test("only tests/helpers/chromium.ts loads playwright-core; the others import its types alone", () => {
    const loads = (src: string) =>
      scan_imports(src).some((imp) => imp.specifier === "playwright-core") && /^\s*import\s+(?!type\b)[^;]*["']playwright-core["']|\bimport\(\s*["']playwright-core["']/m.test(src);
    expect(files.filter(([, src]) => loads(src)).map(([file]) => file)).toEqual(["tests/helpers/chromium.ts"]);
  });
});
