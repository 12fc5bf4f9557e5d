// The README's generated parts (scripts/docs/sections/*) match the code they are built from:
// a setting, a CLI option or a rate-limit counter changed without `npm run docs` fails here.
import { describe, expect, test } from "../helpers/test_api.ts";
import { orphan_markers, read_readme, regenerate, sections } from "../../scripts/docs/generate.ts";

describe("README's generated parts", () => {
  test("every part is current (npm run docs)", async () => {
    const readme = read_readme();
    expect((await sections()).length).toBeGreaterThan(0);
    const fresh = await regenerate(readme);
    if (fresh !== readme) {
      const a = readme.split("\n"),
        b = fresh.split("\n");
      const line = a.findIndex((text, i) => text !== b[i]);
      throw new Error(`README.md is stale from line ${line + 1}: run \`npm run docs\`\n  README:    ${a[line]}\n  generated: ${b[line]}`);
    }
  });

  test("every marker in README belongs to a section", async () => {
    expect(await orphan_markers(read_readme())).toEqual([]);
  });
});
