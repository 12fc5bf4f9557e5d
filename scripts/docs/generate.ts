/**
 * The README's generated parts. Each file in scripts/docs/sections/ exports `render(): string`,
 * the Markdown of one part, built from the code that holds the facts (the settings schema, the
 * CLI's option declarations, the rate-limit counters). README.md marks where each part goes:
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
export const README = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..", "README.md");

export type Section = { name: string; render: () => string | Promise<string> };

/** Every section, by file name (sections/authentication_methods.ts is `authentication_methods`). */
export async function sections(): Promise<Section[]> {
  const names = readdirSync(SECTIONS_DIR)
    .filter((file) => file.endsWith(".ts"))
    .map((file) => file.slice(0, -3))
    .sort();
  const out: Section[] = [];
  for (const name of names) {
    const module = (await import(join(SECTIONS_DIR, `${name}.ts`))) as { render: () => string | Promise<string> };
    out.push({ name, render: module.render });
  }
  return out;
}

const open_marker = (name: string) => `<!-- generated:${name} — npm run docs -->`;
const close_marker = (name: string) => `<!-- /generated:${name} -->`;

/** The README with every section's part replaced; throws when a section has no markers. */
export async function regenerate(readme: string): Promise<string> {
  let out = readme;
  for (const section of await sections()) {
    const open = open_marker(section.name),
      close = close_marker(section.name);
    const start = out.indexOf(open),
      end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`README.md has no "${open}" … "${close}" markers for scripts/docs/sections/${section.name}.ts`);
    const body = (await section.render()).trimEnd();
    out = `${out.slice(0, start + open.length)}\n${body}\n${out.slice(end)}`;
  }
  return out;
}

/** Markers in README that no section fills. */
export async function orphan_markers(readme: string): Promise<string[]> {
  const known = new Set((await sections()).map((section) => section.name));
  return [...readme.matchAll(/<!-- generated:([\w-]+) /g)].map((m) => m[1]!).filter((name) => !known.has(name));
}

export function read_readme(): string {
  return readFileSync(README, "utf8");
}
