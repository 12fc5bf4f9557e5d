/**
 * The bundler plugin that embeds views/ and static/ in the executable: it replaces
 * src/app/embedded/manifest.ts with a generated module that imports every template as text and every
 * static file with `type: "file"` (which `bun build --compile` stores inside the executable).
 * The module exists only in the bundle; nothing is written to the tree, so development never
 * sees a stale copy.
 */
import type { BunPlugin } from "bun";
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { VENDOR_FILES } from "../src/http/vendor_files.ts";

/** Every file under `dir` (recursively), skipping dot-files, as sorted paths. */
function files_under(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && !entry.name.startsWith(".")) found.push(join(entry.parentPath, entry.name));
  }
  return found.sort();
}

/** The path a file is known by: relative to its folder, with forward slashes. */
function name_in(dir: string, file: string): string {
  return relative(dir, file).split(sep).join("/");
}

/** The source of the manifest module for the repository at `root`. */
export function manifest_source(root: string): string {
  const views = join(root, "views");
  const assets = join(root, "static");
  const imports: string[] = [];
  const templates: string[] = [];
  const statics: string[] = [];
  files_under(views)
    .filter((file) => file.endsWith(".eta"))
    .forEach((file, i) => {
      imports.push(`import t${i} from ${JSON.stringify(file)} with { type: "text" };`);
      templates.push(`${JSON.stringify(name_in(views, file).slice(0, -".eta".length))}: t${i}`);
    });
  files_under(assets).forEach((file, i) => {
    imports.push(`import s${i} from ${JSON.stringify(file)} with { type: "file" };`);
    statics.push(`${JSON.stringify(name_in(assets, file))}: s${i}`);
  });
  // Files of installed packages served with ours (src/http/vendor_files.ts).
  Object.entries(VENDOR_FILES).forEach(([name, path], i) => {
    imports.push(`import v${i} from ${JSON.stringify(join(root, path))} with { type: "file" };`);
    statics.push(`${JSON.stringify(name)}: v${i}`);
  });
  if (templates.length === 0) throw new Error(`no templates found in ${views}`);
  return [...imports, `export const MANIFEST = {`, `  templates: { ${templates.join(", ")} },`, `  static_files: { ${statics.join(", ")} },`, `};`, ``].join("\n");
}

/** Replaces src/app/embedded/manifest.ts of the repository at `root` while bundling. */
export function embed_plugin(root: string): BunPlugin {
  const target = join(root, "src", "app", "embedded", "manifest.ts");
  const filter = new RegExp(`^${target.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`);
  return {
    name: "idp-embed-assets",
    setup(build) {
      build.onLoad({ filter }, () => ({ loader: "ts", contents: manifest_source(root) }));
    },
  };
}
