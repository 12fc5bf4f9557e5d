/**
 * The assets a compiled executable carries (see manifest.ts), turned into what `serve()` takes.
 * Null when running from the repository: the server then reads views/ and static/.
 */
import { readFileSync } from "node:fs";
import { static_file, type StaticFile } from "../../http/endpoints/ops/static.ts";
import { MANIFEST, type Manifest } from "./manifest.ts";

export type EmbeddedAssets = { templates: Record<string, string>; static_files: Map<string, StaticFile> };

/** The embedded templates and static files, or null when nothing is embedded. */
export function embedded_assets(manifest: Manifest | null = MANIFEST): EmbeddedAssets | null {
  if (manifest === null) return null;
  const static_files = new Map<string, StaticFile>();
  for (const [name, path] of Object.entries(manifest.static_files)) {
    // Embedded files are read from the executable's own file system, once at start.
    const file = static_file(name, new Uint8Array(readFileSync(path)));
    if (file !== null) static_files.set(name, file);
  }
  return { templates: { ...manifest.templates }, static_files };
}
