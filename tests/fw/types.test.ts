import { expect, test } from "../helpers/test_api.ts";
import { join } from "node:path";

// The request contract's static type reaches `this.<snake_case name>`; misuse fails to compile.
test("request contracts are statically typed (tsc on types_check.ts)", () => {
  const root = join(import.meta.dir, "../..");
  const result = Bun.spawnSync([join(root, "node_modules/.bin/tsc"), "--noEmit", "-p", join(import.meta.dir, "tsconfig.types.json")], { cwd: root });
  const output = result.stdout.toString() + result.stderr.toString();
  expect(output).toBe("");
  expect(result.exitCode).toBe(0);
}, 60_000);
