/**
 * IDP_THEME_DIR: an operator's templates replace ours by name, without rebuilding. A file of the
 * theme with the same path as one under views/ (`login.eta`, `mail/password_reset.html.eta`)
 * is used instead of it, for the pages (server.ts fw_config) and the mails (provider.ts); the
 * defaults, embedded in the compiled executable, fill in every template the theme leaves out.
 * Templates of the theme's own (pieces its overrides include) go under `partials/`. Its
 * `static/` folder is served under /static/theme/ (images, fonts, stylesheets; no scripts: the
 * pages' CSP runs none). Everything is read and compiled once at start: a file that does not
 * compile, or that replaces no template (a misspelt name), stops the start naming the file.
 */
import { Eta } from "eta";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { Fw } from "../fw/index.ts";
import { static_file, type StaticFile } from "../http/endpoints/ops/static.ts";
import { ConfigError } from "./config.ts";

type TemplateMap = Record<string, string>;

function theme_error(message: string): ConfigError {
  return new ConfigError(`Invalid configuration:\n  brand.theme_dir (IDP_THEME_DIR): ${message}`);
}

function check_dir(theme_dir: string): void {
  let is_dir = false;
  try {
    is_dir = statSync(theme_dir).isDirectory();
  } catch (error) {
    throw theme_error(`cannot read ${theme_dir}: ${(error as Error).message}`);
  }
  if (!is_dir) throw theme_error(`${theme_dir} is not a directory`);
}

/** The theme's templates over the defaults (only the names under `only`, e.g. "mail/"). */
export function themed_templates(defaults: Readonly<TemplateMap>, theme_dir: string | undefined, only = ""): TemplateMap {
  const merged: TemplateMap = { ...defaults };
  if (theme_dir === undefined) return merged;
  check_dir(theme_dir);
  const theme = Fw.read_templates(theme_dir);
  // Compiled with the page engine's settings (fw/views.ts): a syntax error is found here, with the file named.
  const eta = new Eta({ autoEscape: true, autoTrim: false, cache: false, useWith: false });
  for (const [name, text] of Object.entries(theme).sort(([a], [b]) => a.localeCompare(b))) {
    if (name.startsWith("static/")) continue;
    const file = join(theme_dir, `${name}.eta`);
    const known = Object.hasOwn(defaults, name) || name.startsWith("partials/");
    if (!known && only === "") throw theme_error(`${file} replaces no template (a misspelt name?); templates of your own go under partials/`);
    try {
      eta.compile(text);
    } catch (error) {
      throw theme_error(`${file} does not compile: ${(error as Error).message.split("\n")[0]}`);
    }
    if (name.startsWith(only) || name.startsWith("partials/")) merged[name] = text;
  }
  return merged;
}

/** The files of the theme's `static/` folder, as `theme/<path>`; none without a theme or that folder. */
export function theme_static_files(theme_dir: string | undefined): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (theme_dir === undefined) return files;
  const root = join(theme_dir, "static");
  if (!existsSync(root)) return files;
  const walk = (folder: string, prefix: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const name = `${prefix}${entry.name}`;
      if (entry.isDirectory()) walk(join(folder, entry.name), `${name}/`);
      else if (extname(entry.name).toLowerCase() !== ".js") {
        const file = static_file(`theme/${name}`, new Uint8Array(readFileSync(join(folder, entry.name))));
        if (file !== null) files.set(`theme/${name}`, file);
      }
    }
  };
  walk(root, "");
  return files;
}
