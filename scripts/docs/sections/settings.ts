// README "Configuration": the settings table, one row per setting, from the declarations on the
// schema (src/config/schema.ts, read by src/config/settings.ts).
import { SETTINGS, type Setting } from "../../../src/config/settings.ts";

/** A table cell's text: a bare `|` would end the cell, even in code. */
const cell = (text: string) => text.replaceAll("|", "\\|");

/** The default as users should read it: the declared one, else the schema's own. */
function shown_default(setting: Setting): string {
  if (setting.shown_default !== undefined) return setting.shown_default;
  const value = setting.default;
  if (value === undefined) return "unset";
  if (Array.isArray(value)) return value.length === 0 ? "empty" : `\`${value.join(",")}\``;
  return `\`${String(value)}\``;
}

export function render(): string {
  return [
    "| Variable | Key | Default | Meaning |",
    "| --- | --- | --- | --- |",
    ...SETTINGS.map((s) => `| ${s.env === null ? "config file only" : `\`${s.env}\``} | \`${s.path}\` | ${cell(shown_default(s))} | ${cell(s.description)} |`),
  ].join("\n");
}
