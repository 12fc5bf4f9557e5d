/**
 * `npm run docs`: regenerates the README's generated parts (scripts/docs/generate.ts).
 * `npm run docs -- --check` changes nothing and exits 1 when README.md is stale.
 */
import { writeFileSync } from "node:fs";
import { README, orphan_markers, read_readme, regenerate } from "./docs/generate.ts";

const readme = read_readme();
const orphans = await orphan_markers(readme);
if (orphans.length > 0) {
  console.error(`README.md has generated parts no section renders: ${orphans.join(", ")}`);
  process.exit(1);
}
const fresh = await regenerate(readme);
if (process.argv.includes("--check")) {
  if (fresh !== readme) {
    console.error("README.md is stale: run `npm run docs`");
    process.exit(1);
  }
  console.log("README.md is current");
} else if (fresh !== readme) {
  writeFileSync(README, fresh);
  console.log("README.md regenerated");
} else console.log("README.md is current");
