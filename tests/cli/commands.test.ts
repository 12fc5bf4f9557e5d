/**
 * The commands' declarations (src/cli/commands.ts) are the only list of their options: the
 * parser accepts exactly the declared ones, and the help shows every one of them.
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { COMMON_FLAGS, flag_name, type OptionSpec } from "../../src/cli/args.ts";
import { COMMANDS } from "../../src/cli/commands.ts";
import { UsageError } from "../../src/cli/errors.ts";
import { command_help, main_help, option_usage, usage_parts } from "../../src/cli/help.ts";
import { leaves, parse_command, type Command } from "../../src/cli/spec.ts";
import { sandbox, type Sandbox } from "./helpers.ts";

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

/** Every command with its words (`["users", "passkeys", "list"]`). */
const ALL = Object.entries(COMMANDS).flatMap(([name, node]) => leaves(node, [name]));

/** The words and positional arguments that reach the command's parser. */
function call(words: readonly string[], command: Command): string[] {
  return [...words.slice(1), ...command.positionals.map((name) => `${name}-value`)];
}

/** Every option declared by any command, by its name on the command line. */
const DECLARED = new Set(ALL.flatMap(({ command }) => Object.keys(command.options).map(flag_name)));

/** `idp <words> --help` flattened: wrapped descriptions read as one line. */
function help_of(words: readonly string[]): string {
  return command_help(words[0]!)!.replace(/\s+/g, " ");
}

describe("command declarations", () => {
  test("every declared option is accepted by its command's parser, with its type", () => {
    for (const { words, command } of ALL) {
      const options: Record<string, OptionSpec> = { ...command.options, ...COMMON_FLAGS };
      const argv = call(words, command);
      const expected: Record<string, unknown> = {};
      for (const [key, spec] of Object.entries(options)) {
        if (spec.type === "boolean") {
          argv.push(`--${flag_name(key)}`);
          expected[key] = true;
        } else if (spec.multiple) {
          argv.push(`--${flag_name(key)}`, "one", `--${flag_name(key)}=two`);
          expected[key] = ["one", "two"];
        } else {
          argv.push(`--${flag_name(key)}`, "one");
          expected[key] = "one";
        }
      }
      // The function the dispatcher (index.ts) parses every command line with.
      const { command: found, args } = parse_command(COMMANDS[words[0]!]!, words[0]!, argv);
      expect([words.join(" "), found === command]).toEqual([words.join(" "), true]);
      expect([words.join(" "), args.flags as Record<string, unknown>]).toEqual([words.join(" "), expected]);
      expect(args.positionals).toEqual(command.positionals.map((name) => `${name}-value`));
    }
  });

  test("a command's parser refuses every option it does not declare", () => {
    for (const { words, command } of ALL) {
      const own = new Set([...Object.keys(command.options), ...Object.keys(COMMON_FLAGS)].map(flag_name));
      for (const name of [...DECLARED, "not-an-option"].filter((name) => !own.has(name))) {
        const argv = [...call(words, command), `--${name}`, "x"];
        expect(() => parse_command(COMMANDS[words[0]!]!, words[0]!, argv)).toThrow(new UsageError(`unknown option --${name}`));
      }
    }
  });

  test("run_cli refuses an undeclared option before the command runs (exit 2)", async () => {
    for (const { words, command } of ALL) {
      const result = await box.run([...words.slice(0, 1), ...call(words, command), "--not-an-option"]);
      expect([words.join(" "), result.code, result.stderr.split("\n")[0]]).toEqual([words.join(" "), 2, "error: unknown option --not-an-option"]);
    }
  });

  test("the help shows every command's usage, and each option with its description", () => {
    for (const { words, command } of ALL) {
      const help = help_of(words);
      expect([words.join(" "), help.includes(`idp ${words.join(" ")}`)]).toEqual([words.join(" "), true]);
      expect([words.join(" "), help.includes(command.summary)]).toEqual([words.join(" "), true]);
      for (const part of usage_parts(command)) expect([words.join(" "), part, help.includes(part)]).toEqual([words.join(" "), part, true]);
      for (const [key, spec] of Object.entries({ ...command.options, ...COMMON_FLAGS })) {
        const line = `${option_usage(key, spec)} ${spec.help}`;
        expect([words.join(" "), line, help.includes(line)]).toEqual([words.join(" "), line, true]);
      }
    }
  });

  test("the main help lists every top-level command with its summary", () => {
    const help = main_help().replace(/\s+/g, " ");
    for (const [name, node] of Object.entries(COMMANDS)) expect(help).toContain(` ${name} ${node.summary}`);
  });

  test("option keys are snake_case (the command line spells them with dashes) and each has a description", () => {
    for (const { words, command } of ALL) {
      for (const [key, spec] of Object.entries(command.options)) {
        expect([words.join(" "), key, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(key), spec.help.length > 0]).toEqual([words.join(" "), key, true, true]);
      }
    }
  });
});
