/**
 * The documents' generated parts. Each file in scripts/docs/sections/ exports `document`, the
 * file it fills (from the repository's root: "README.md", "docs/configuration.md"), and
 * `render(): string`, the Markdown of one part, built from the code that holds the facts (the
 * settings schema, the CLI's option declarations, the rate-limit counters). The document marks
 * where the part goes:
 *
 *   <!-- generated:NAME — npm run docs -->
 *   …
 *   <!-- /generated:NAME -->
 *
 * `npm run docs` rewrites every part; tests/docs/readme.test.ts fails when one is stale.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const SECTIONS_DIR = join(fileURLToPath(new URL(".", import.meta.url)), "sections");
const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");

export type Section = { name: string; document: string; render: () => string | Promise<string> };

/** Every section, by file name (sections/authentication_methods.ts is `authentication_methods`). */
export async function sections(): Promise<Section[]> {
  const names = readdirSync(SECTIONS_DIR)
    .filter((file) => file.endsWith(".ts"))
    .map((file) => file.slice(0, -3))
    .sort();
  const out: Section[] = [];
  for (const name of names) {
    const module = (await import(join(SECTIONS_DIR, `${name}.ts`))) as { document?: unknown; render: () => string | Promise<string> };
    if (typeof module.document !== "string") throw new Error(`scripts/docs/sections/${name}.ts exports no \`document\` (the file it fills)`);
    out.push({ name, document: module.document, render: module.render });
  }
  return out;
}

/** The documents that have generated parts, README.md first. */
export async function documents(): Promise<string[]> {
  const names = new Set((await sections()).map((section) => section.document));
  return ["README.md", ...[...names].filter((name) => name !== "README.md").sort()];
}

/** A document's path on disk, from its path in the repository. */
export const document_path = (document: string) => join(ROOT, document);

export function read_document(document: string): string {
  return readFileSync(document_path(document), "utf8");
}

export function read_readme(): string {
  return read_document("README.md");
}

const open_marker = (name: string) => `<!-- generated:${name} — npm run docs -->`;
const close_marker = (name: string) => `<!-- /generated:${name} -->`;

/** `text` (the document `document`) with its sections' parts replaced; throws when a section has no markers. */
export async function regenerate(document: string, text: string): Promise<string> {
  let out = text;
  for (const section of await sections()) {
    if (section.document !== document) continue;
    const open = open_marker(section.name),
      close = close_marker(section.name);
    const start = out.indexOf(open),
      end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`${document} has no "${open}" … "${close}" markers for scripts/docs/sections/${section.name}.ts`);
    const body = (await section.render()).trimEnd();
    out = `${out.slice(0, start + open.length)}\n${body}\n${out.slice(end)}`;
  }
  return out;
}

/** Markers in `text` (the document `document`) that no section of that document fills. */
export async function orphan_markers(document: string, text: string): Promise<string[]> {
  const known = new Set((await sections()).filter((section) => section.document === document).map((section) => section.name));
  return [...text.matchAll(/<!-- generated:([\w-]+) /g)].map((m) => m[1]!).filter((name) => !known.has(name));
}
