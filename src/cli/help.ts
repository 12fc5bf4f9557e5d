/**
 * Help texts: `idp --help`, `idp help <command>` and `idp <command> --help`, rendered from the
 * command declarations (commands.ts, spec.ts): the usage lines, each command's summary and
 * options, then the notes of the command.
 */
import { COMMON_FLAGS, flag_name, type OptionSpec } from "./args.ts";
import { COMMANDS } from "./commands.ts";
import { leaves, type Command, type CommandGroup } from "./spec.ts";
import { VERSION } from "./version.ts";

/** The width help lines are wrapped to. */
const WIDTH = 96;
/** Where descriptions start in the two-column lists. */
const COLUMN = 29;

/** `parts` joined by spaces into lines of at most `width`; lines after the first start with `indent`. */
function wrap(parts: readonly string[], width: number, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const part of parts) {
    const start = lines.length === 0 ? "" : indent;
    if (line !== "" && (start + line).length + 1 + part.length > width) {
      lines.push(start + line);
      line = part;
    } else line = line === "" ? part : `${line} ${part}`;
  }
  lines.push((lines.length === 0 ? "" : indent) + line);
  return lines.join("\n");
}

/** A paragraph of prose reflowed to the help's width. */
function reflow(text: string, width = WIDTH): string {
  return wrap(text.split(/\s+/).filter(Boolean), width, "");
}

/** `--email E`, `--redirect-uri U ...`, `-h, --help`: an option as the usage and the lists show it. */
export function option_usage(key: string, spec: OptionSpec): string {
  const value = spec.type === "string" ? ` ${spec.value}` : "";
  return `${spec.short === undefined ? "" : `-${spec.short}, `}--${flag_name(key)}${value}${spec.type === "string" && spec.multiple ? " ..." : ""}`;
}

/** What the command line of a command looks like, each piece unbroken: `<username>`, `[--email E]`. */
export function usage_parts(command: Command): string[] {
  return [
    ...command.positionals.map((name) => `<${name}>`),
    ...(command.rest === undefined ? [] : [`[${command.rest} ...]`]),
    ...Object.entries(command.options).map(([key, spec]) => (spec.required ? option_usage(key, spec) : `[${option_usage(key, spec)}]`)),
  ];
}

/** The usage line of `idp <words>`, wrapped under its first argument. */
function usage_line(words: readonly string[], command: Command): string {
  const head = `idp ${words.join(" ")}`;
  return `  ${wrap([head, ...usage_parts(command)], WIDTH - 2, " ".repeat(head.length + 3))}`;
}

/** `left` and the description in two columns; a long left side puts the description on the next line. */
function two_columns(left: string, text: string): string {
  const pad = " ".repeat(COLUMN);
  const description = reflow(text, WIDTH - COLUMN).replaceAll("\n", `\n${pad}`);
  return left.length < COLUMN - 1 ? `${left.padEnd(COLUMN)}${description}` : `${left}\n${pad}${description}`;
}

/** One line per option: its usage and its description. */
function option_lines(options: Record<string, OptionSpec>, indent: string): string[] {
  return Object.entries(options).map(([key, spec]) => two_columns(`${indent}${option_usage(key, spec)}`, spec.help));
}

/** The options every command accepts, and what the exit codes mean. */
function common(): string {
  return [
    "Every command accepts:",
    ...option_lines(COMMON_FLAGS, "  "),
    reflow(
      "Exit codes: 0 success, 1 the command failed (invalid configuration, unknown user or client, taken username, bad URL...), 2 usage error (unknown command or option, missing argument).",
    ),
  ].join("\n");
}

/** A command's notes, a reflowed paragraph each. */
function notes_of(node: Command | CommandGroup): string[] {
  return node.notes === undefined ? [] : node.notes.split(/\n\s*\n/).map((paragraph) => reflow(paragraph));
}

/** What `idp` does besides the commands of the table (index.ts handles them). */
export const BUILT_IN: readonly { usage: string; summary: string }[] = [
  { usage: "help [command]", summary: "show help for a command (also idp <command> --help)" },
  { usage: "--version", summary: "print the version" },
];

/** `idp --help`. */
export function main_help(): string {
  const rows = Object.entries(COMMANDS).map(([name, node]) =>
    two_columns(`  ${name}`, node.kind === "group" ? `${node.summary} (${Object.keys(node.commands).join(", ")})` : node.summary),
  );
  return `idp ${VERSION} — a self-hosted OpenID Connect identity provider

Usage: idp [command] [options]

Commands:
${rows.join("\n")}
${BUILT_IN.map(({ usage, summary }) => two_columns(`  ${usage}`, summary)).join("\n")}

${reflow("Configuration comes from the environment (DATABASE_URL, IDP_ISSUER, PORT, HOST, ...) and the optional JSON file named by IDP_CONFIG; see `idp config check`.")}

${common()}
`;
}

/** `idp <name> --help`, or undefined when there is no such command. */
export function command_help(name: string): string | undefined {
  const node = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (node === undefined) return undefined;
  const commands = leaves(node, [name]);
  const usage = ["Usage:", ...commands.map(({ words, command }) => usage_line(words, command))];
  const details =
    node.kind === "command"
      ? [reflow(node.summary), ...(Object.keys(node.options).length === 0 ? [] : ["", "Options:", ...option_lines(node.options, "  ")])]
      : [
          "Commands:",
          ...commands.flatMap(({ words, command }) => [two_columns(`  ${words.slice(1).join(" ") || "(no command)"}`, command.summary), ...option_lines(command.options, "    ")]),
        ];
  return [...usage, "", ...details, "", ...notes_of(node).flatMap((paragraph) => [paragraph, ""]), common(), ""].join("\n");
}

/** Help for `command`, or the main help when there is none. */
export function help_for(command: string | undefined): string {
  return (command !== undefined && command_help(command)) || main_help();
}
