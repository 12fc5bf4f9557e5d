// README: the command reference, from the commands' declarations (src/cli/commands.ts), as
// `idp <command> --help` prints them without the notes.
import { COMMON_FLAGS, type OptionSpec } from "../../../src/cli/args.ts";
import { COMMANDS } from "../../../src/cli/commands.ts";
import { BUILT_IN, option_usage } from "../../../src/cli/help.ts";
import { leaves, type Command } from "../../../src/cli/spec.ts";

/** Prose as Markdown: `<name>` would be taken for an HTML tag. */
const text = (prose: string) => prose.replaceAll("<", "&lt;");

function options(specs: Record<string, OptionSpec>, indent: string): string[] {
  return Object.entries(specs).map(([key, spec]) => `${indent}- \`${option_usage(key, spec)}\`${spec.required ? " (required)" : ""} — ${text(spec.help)}`);
}

function entry(words: readonly string[], command: Command): string[] {
  const usage = ["idp", ...words, ...command.positionals.map((name) => `<${name}>`), ...(command.rest === undefined ? [] : [`[${command.rest} ...]`])].join(" ");
  return [`- \`${usage}\` — ${text(command.summary)}`, ...options(command.options, "  ")];
}

export function render(): string {
  const out: string[] = [];
  for (const [name, node] of Object.entries(COMMANDS)) {
    // A group opens a list of its own; top-level commands (serve, migrate) share one.
    if (node.kind === "group") out.push("", `\`idp ${name}\`: ${text(node.summary)}.`, "");
    out.push(...leaves(node, [name]).flatMap(({ words, command }) => entry(words, command)));
  }
  out.push(
    "",
    "Help and version:",
    "",
    ...BUILT_IN.map(({ usage, summary }) => `- \`idp ${usage}\` — ${text(summary)}`),
    "",
    "Every command accepts:",
    "",
    ...options(COMMON_FLAGS, ""),
  );
  return out.join("\n");
}
