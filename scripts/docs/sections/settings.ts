// docs/configuration.md: every setting, one table per topic, the ones production needs marked
// and listed first; from the declarations on the schema (src/config/schema.ts, read by
// src/config/settings.ts).
import { SETTINGS, TOPICS, type Setting, type Topic } from "../../../src/config/settings.ts";
import { anchor } from "../anchors.ts";

export const document = "docs/configuration.md";

/** A table cell's text: a bare `|` would end the cell, even in code. */
const cell = (text: string) => text.replaceAll("|", "\\|");

/** A description's links to README sections (`](#mail)`), as docs/configuration.md reaches them. */
export const from_docs = (text: string) => text.replaceAll("](#", "](../README.md#");

/** The default as users should read it: the declared one, else the schema's own. */
function shown_default(setting: Setting): string {
  if (setting.shown_default !== undefined) return setting.shown_default;
  const value = setting.default;
  if (value === undefined) return "unset";
  if (Array.isArray(value)) return value.length === 0 ? "empty" : `\`${value.join(",")}\``;
  return `\`${String(value)}\``;
}

/** How a setting is named in prose: its variable, else its key. */
export const setting_name = (setting: Setting) => `\`${setting.env ?? setting.path}\``;

/** The settings of each topic, in the schema's order; throws naming a setting without a topic. */
export function by_topic(settings: readonly Setting[] = SETTINGS): Map<Topic, Setting[]> {
  const out = new Map<Topic, Setting[]>(TOPICS.map((topic) => [topic, []]));
  for (const setting of settings) {
    if (setting.topic === undefined) throw new Error(`setting ${setting.path} has no topic: add \`topic\` to its .meta() in src/config/schema.ts`);
    out.get(setting.topic)!.push(setting);
  }
  return out;
}

function row(setting: Setting): string {
  const mark = setting.production === undefined ? "" : `**Production:** ${setting.production}. `;
  const variable = setting.env === null ? "config file only" : `\`${setting.env}\``;
  return `| ${variable} | \`${setting.path}\` | ${cell(shown_default(setting))} | ${cell(from_docs(mark + setting.description))} |`;
}

export function render(): string {
  const topics = [...by_topic()].filter(([, settings]) => settings.length > 0);
  const production = topics.flatMap(([, settings]) => settings.filter((s) => s.production !== undefined));
  return [
    ...topics.map(([topic, settings]) => `- [${topic}](#${anchor(topic)}): ${settings.length} settings`),
    "",
    "## What production needs",
    "",
    "The settings a production server needs set, or set a certain way (marked **Production** in the tables below);",
    "[Going to production](../README.md#going-to-production) sets them in order.",
    "",
    ...production.map((s) => `- ${setting_name(s)} ([${s.topic}](#${anchor(s.topic!)})): ${from_docs(s.production!)}.`),
    ...topics.flatMap(([topic, settings]) => ["", `## ${topic}`, "", "| Variable | Key | Default | Meaning |", "| --- | --- | --- | --- |", ...settings.map(row)]),
  ].join("\n");
}
