// The generated parts of README.md and docs/ (scripts/docs/sections/*) match the code they are
// built from: a setting, a CLI option or a rate-limit counter changed without `npm run docs`
// fails here, naming the document and the first stale line.
import { describe, expect, test } from "../helpers/test_api.ts";
import { documents, orphan_markers, read_document, regenerate, sections } from "../../scripts/docs/generate.ts";
import { rejection } from "../helpers/settle.ts";

const DOCUMENTS = await documents();

describe("the documents' generated parts", () => {
  test("README.md, docs/configuration.md and docs/cli.md have generated parts", async () => {
    expect((await sections()).length).toBeGreaterThan(0);
    expect(DOCUMENTS).toEqual(["README.md", "docs/cli.md", "docs/configuration.md"]);
  });

  for (const document of DOCUMENTS) {
    test(`${document}: every part is current (npm run docs)`, async () => {
      const text = read_document(document);
      const fresh = await regenerate(document, text);
      if (fresh !== text) {
        const a = text.split("\n"),
          b = fresh.split("\n");
        const line = a.findIndex((line_text, i) => line_text !== b[i]);
        throw new Error(`${document} is stale from line ${line + 1}: run \`npm run docs\`\n  ${document}: ${a[line]}\n  generated: ${b[line]}`);
      }
    });

    test(`${document}: every marker belongs to a section of that document`, async () => {
      expect(await orphan_markers(document, read_document(document))).toEqual([]);
    });
  }

  test("a section's markers missing from its document is an error naming both", async () => {
    expect((await rejection(regenerate("docs/configuration.md", "# no markers\n"))).message).toContain("docs/configuration.md has no");
  });

  test("a marker in another document than its section's is an orphan", async () => {
    expect(await orphan_markers("README.md", "<!-- generated:cli — npm run docs -->\n<!-- /generated:cli -->\n")).toEqual(["cli"]);
  });
});
