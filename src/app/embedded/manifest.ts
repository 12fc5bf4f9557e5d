/**
 * The files embedded in the single executable. In development this module is what you see:
 * nothing is embedded and the server reads views/ and static/ from the repository. When
 * `npm run build` compiles `dist/idp`, its bundler plugin (scripts/embed.ts) replaces this
 * module with one that imports every template as text and every static file as an embedded
 * file, so the executable needs nothing beside it.
 */

/** Template name (path under views/ without `.eta`) → its text; static name → embedded path. */
export type Manifest = {
  templates: Record<string, string>;
  /** Path under static/ → where the executable embeds it (`/$bunfs/...`), readable with node:fs. */
  static_files: Record<string, string>;
};

export const MANIFEST: Manifest | null = null;
