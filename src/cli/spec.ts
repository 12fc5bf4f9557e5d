/**
 * How a command is declared, once: its name (its key in the table of commands.ts), what it does,
 * its positional arguments and its options, each option with its type, value placeholder,
 * whether it repeats and one line of help. The parser reads the options from here
 * (parse_command), `idp --help` renders them (help.ts), and so does docs/cli.md's command
 * reference (scripts/docs/sections/cli.ts): no other list of a command's options exists.
 */
import { expect_positionals, parse_args, type OptionSpec, type ParsedArgs, type WithCommon } from "./args.ts";
import type { CliContext } from "./context.ts";
import { UsageError } from "./errors.ts";

/** A command's options by snake_case key. */
export type OptionSpecs = Record<string, OptionSpec>;

/** What a command is declared with (`command()` adds how it runs). */
export type CommandSpec<S extends OptionSpecs> = {
  /** What it does, one line (help and docs/cli.md). */
  summary: string;
  /** Its positional arguments in order, named as usage errors name them (`missing argument <username>`). */
  positionals?: readonly string[];
  /**
   * A last positional given any number of times (`UPSTREAM=LOCAL ...`). The command then checks
   * its positional arguments itself.
   */
  rest?: string;
  /** Its options, snake_case keys (`--email-verified` is `email_verified`), in the order the usage line shows them. */
  options?: S;
  /** A longer explanation, shown by `idp <command> --help` after the options (top-level commands). */
  notes?: string;
};

/** The parsed arguments of a command declared with `spec`. */
export type ArgsOf<T extends CommandSpec<OptionSpecs>> = ParsedArgs<WithCommon<T extends { options: infer S extends OptionSpecs } ? S : Record<never, never>>>;

/** A command that runs: `idp users add <username> [options]`. */
export type Command<S extends OptionSpecs = OptionSpecs> = Required<Pick<CommandSpec<S>, "summary" | "positionals" | "options">> &
  Pick<CommandSpec<S>, "rest" | "notes"> & {
    kind: "command";
    /** Runs with the parsed arguments (the positionals already counted unless `rest`). */
    run(ctx: CliContext, args: ParsedArgs<WithCommon<S>>): Promise<void>;
  };

/** Commands under one word: `idp users <command>`, `idp users passkeys <command>`. */
export type CommandGroup = {
  kind: "group";
  summary: string;
  /** The commands, in the order the help lists them. */
  commands: Record<string, Command | CommandGroup>;
  /** A longer explanation, shown by `idp <group> --help` after the commands. */
  notes?: string;
  /**
   * The command that runs when no command word follows the group's (`idp backup --out FILE` is
   * `idp backup create --out FILE`); the help and docs/cli.md show it without its word.
   */
  default?: string;
};

/** Declares a command: its spec and the function that runs it with the arguments parsed by that spec. */
export function command<const S extends OptionSpecs = Record<never, never>>(
  spec: CommandSpec<S>,
  run: (ctx: CliContext, args: ParsedArgs<WithCommon<S>>) => Promise<void>,
): Command<S> {
  return { kind: "command", ...spec, positionals: spec.positionals ?? [], options: spec.options ?? ({} as S), run };
}

/** Declares a group of commands. */
export function group(spec: Omit<CommandGroup, "kind">): CommandGroup {
  return { kind: "group", ...spec };
}

/**
 * Finds the command that `argv` names below `node` (`path` is the words so far, for messages)
 * and parses its arguments with its declared options; raises a UsageError (exit 2).
 */
export function parse_command(node: Command | CommandGroup, path: string, argv: readonly string[]): { command: Command; args: ParsedArgs<WithCommon<OptionSpecs>> } {
  let rest = argv;
  while (node.kind === "group") {
    const commands: Record<string, Command | CommandGroup> = node.commands;
    const [sub, ...after] = rest;
    if ((sub === undefined || sub.startsWith("-")) && node.default !== undefined) {
      node = commands[node.default]!;
      continue;
    }
    if (sub === undefined || sub.startsWith("-")) throw new UsageError(`missing ${path} command (${Object.keys(commands).join(", ")})`);
    // Own properties only: `idp users constructor` is an unknown command, not Object's.
    const next = Object.hasOwn(commands, sub) ? commands[sub] : undefined;
    if (next === undefined) throw new UsageError(`unknown ${path} command "${sub}"`);
    node = next;
    path = `${path} ${sub}`;
    rest = after;
  }
  const args = parse_args(rest, node.options);
  if (node.rest === undefined) expect_positionals(args.positionals, node.positionals);
  return { command: node, args };
}

/** Every command below `node` with its words (`["passkeys", "list"]`), in table order. */
export function leaves(node: Command | CommandGroup, words: readonly string[] = []): { words: string[]; command: Command }[] {
  if (node.kind === "command") return [{ words: [...words], command: node }];
  return Object.entries(node.commands).flatMap(([name, child]) => leaves(child, name === node.default ? [...words] : [...words, name]));
}
