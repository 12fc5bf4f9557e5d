import { describe, expect, test } from "./test_api.ts";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { rejection } from "./settle.ts";

describe("rejection", () => {
  test("gives the reason of a rejected promise", async () => {
    const error = await rejection(Promise.reject(new TypeError("no")));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe("no");
  });

  test("fails when the promise resolves", async () => {
    const error = await rejection(rejection(Promise.resolve(1)));
    expect(error.message).toBe("expected the promise to reject, but it resolved");
  });
});

test("no test waits on a promise through expect().resolves / .rejects (see settle.ts)", () => {
  const root = join(import.meta.dirname, "..");
  // The matcher in any form: `.resolves`, `. rejects` across a line break, `["resolves"]`.
  const matcher = /(\.\s*|\[\s*["'`])(resolves|rejects)\b/g;
  const offenders: string[] = [];
  for (const path of readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".ts"))) {
    if (path === "helpers/settle.ts" || path === "helpers/settle.test.ts") continue;
    const text = readFileSync(join(root, path), "utf8");
    for (const found of text.matchAll(matcher)) offenders.push(`tests/${path}:${text.slice(0, found.index).split("\n").length}`);
  }
  expect(offenders).toEqual([]);
});
