// docs/cli.md: the command reference, from the commands' declarations (src/cli/commands.ts), as
// `idp <command> --help` prints them: a heading per top-level command, its commands and options,
// then its notes.
import { COMMON_FLAGS, type OptionSpec } from "../../../src/cli/args.ts";
import { COMMANDS } from "../../../src/cli/commands.ts";
import { BUILT_IN, option_usage } from "../../../src/cli/help.ts";
import { leaves, type Command, type CommandGroup } from "../../../src/cli/spec.ts";
import { anchor } from "../anchors.ts";

export const document = "docs/cli.md";

/** Prose as Markdown: `<name>` would be taken for an HTML tag, `*` for emphasis. */
const text = (prose: string) => prose.replaceAll("<", "&lt;").replaceAll("*", "\\*");

/** A summary as a sentence: "manage end users" → "Manage end users." */
const sentence = (summary: string) => `${text(summary.charAt(0).toUpperCase() + summary.slice(1))}.`;

function options(specs: Record<string, OptionSpec>, indent: string): string[] {
  return Object.entries(specs).map(([key, spec]) => `${indent}- \`${option_usage(key, spec)}\`${spec.required ? " (required)" : ""} — ${text(spec.help)}`);
}

function entry(words: readonly string[], command: Command): string[] {
  const usage = ["idp", ...words, ...command.positionals.map((name) => `<${name}>`), ...(command.rest === undefined ? [] : [`[${command.rest} ...]`])].join(" ");
  return [`- \`${usage}\` — ${text(command.summary)}`, ...options(command.options, "  ")];
}

/** The notes `idp <name> --help` ends with, a paragraph each (the help reflows them; so does Markdown). */
const notes = (node: Command | CommandGroup) =>
  node.notes === undefined ? [] : node.notes.split(/\n\s*\n/).flatMap((paragraph) => ["", text(paragraph.split(/\s+/).filter(Boolean).join(" "))]);

export function render(): string {
  const heading = (name: string) => `\`idp ${name}\``;
  const out = [
    ...Object.keys(COMMANDS).map((name) => `- [${heading(name)}](#${anchor(heading(name))})`),
    "- [Help and version](#help-and-version)",
    "- [Options of every command](#options-of-every-command)",
  ];
  for (const [name, node] of Object.entries(COMMANDS)) {
    out.push("", `## ${heading(name)}`, "");
    if (node.kind === "group") out.push(sentence(node.summary), "");
    out.push(...leaves(node, [name]).flatMap(({ words, command }) => entry(words, command)), ...notes(node));
  }
  out.push(
    "",
    "## Help and version",
    "",
    ...BUILT_IN.map(({ usage, summary }) => `- \`idp ${usage}\` — ${text(summary)}`),
    "",
    "## Options of every command",
    "",
    ...options(COMMON_FLAGS, ""),
  );
  return out.join("\n");
}
