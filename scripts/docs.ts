/**
 * `npm run docs`: regenerates the generated parts of README.md and docs/ (scripts/docs/generate.ts).
 * `npm run docs -- --check` changes nothing and exits 1 when a document is stale.
 */
import { writeFileSync } from "node:fs";
import { document_path, documents, orphan_markers, read_document, regenerate } from "./docs/generate.ts";

const check = process.argv.includes("--check");
let stale = false;
for (const document of await documents()) {
  const text = read_document(document);
  const orphans = await orphan_markers(document, text);
  if (orphans.length > 0) {
    console.error(`${document} has generated parts no section renders: ${orphans.join(", ")}`);
    process.exit(1);
  }
  const fresh = await regenerate(document, text);
  if (fresh === text) console.log(`${document} is current`);
  else if (check) {
    console.error(`${document} is stale: run \`npm run docs\``);
    stale = true;
  } else {
    writeFileSync(document_path(document), fresh);
    console.log(`${document} regenerated`);
  }
}
if (stale) process.exit(1);
