import { expect, test } from "../helpers/test_api.ts";
import { join } from "node:path";
import { run_sync } from "../helpers/spawn.ts";

// The request contract's static type reaches `this.<snake_case name>`; misuse fails to compile.
test("request contracts are statically typed (tsc on types_check.ts)", () => {
  const root = join(import.meta.dirname, "../..");
  const result = run_sync([join(root, "node_modules/.bin/tsc"), "--noEmit", "-p", join(import.meta.dirname, "tsconfig.types.json")], { cwd: root });
  expect(result.stdout + result.stderr).toBe("");
  expect(result.code).toBe(0);
}, 60_000);
