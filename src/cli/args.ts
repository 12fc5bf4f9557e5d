/**
 * A small command-line parser (no framework dependency): `--flag value`, `--flag=value`,
 * repeatable flags, booleans, positional arguments and `--` to end the flags. Every command
 * declares its flags (spec.ts); an unknown flag or a missing value raises a UsageError (exit code 2).
 */
import { UsageError } from "./errors.ts";

export type FlagSpec = { type: "boolean" } | { type: "string"; multiple?: false } | { type: "string"; multiple: true };

export type FlagSpecs = Record<string, FlagSpec>;

/**
 * A flag as a command declares it: how it parses, and what the help and docs/cli.md say of it.
 * A string flag names what its value looks like (`N`, `URL`, `web|native`).
 */
export type OptionSpec = ({ type: "boolean"; value?: never } | { type: "string"; multiple?: false; value: string } | { type: "string"; multiple: true; value: string }) & {
  /** One line: what the option does. */
  help: string;
  /** Shown without brackets in the usage line; the command itself checks that it is given. */
  required?: true;
  /** A one-letter alias (`-h`). */
  short?: string;
};

/** The parsed value of one flag, typed from its spec. */
export type FlagValue<S extends FlagSpec> = S extends { type: "boolean" } ? boolean : S extends { multiple: true } ? string[] : string | undefined;

export type ParsedArgs<S extends FlagSpecs> = {
  flags: { [K in keyof S]: FlagValue<S[K]> };
  positionals: string[];
};

/** Flags every command accepts. */
export const COMMON_FLAGS = {
  json: { type: "boolean", help: "print one machine-readable JSON document on stdout" },
  help: { type: "boolean", short: "h", help: "show the command's help" },
} as const satisfies Record<string, OptionSpec>;

export type WithCommon<S extends FlagSpecs> = S & typeof COMMON_FLAGS;

/** snake_case in code, dashes on the command line: `email_verified` is `--email-verified`. */
export function flag_name(key: string): string {
  return key.replace(/_/g, "-");
}

/**
 * Parses `argv` (the arguments after the command words) against `specs`. Flag keys use
 * snake_case in code and dashes on the command line (`email_verified` ↔ `--email-verified`).
 */
export function parse_args<S extends FlagSpecs>(argv: readonly string[], specs: S): ParsedArgs<WithCommon<S>> {
  const all: FlagSpecs = { ...specs, ...COMMON_FLAGS };
  const by_name = new Map<string, string>();
  // One-letter aliases (`-h` is `--help`), from the specs that declare one.
  const by_letter = new Map<string, string>();
  for (const [key, spec] of Object.entries(all)) {
    by_name.set(flag_name(key), key);
    const letter = (spec as Partial<OptionSpec>).short;
    if (letter !== undefined) by_letter.set(letter, flag_name(key));
  }

  const flags: Record<string, string | string[] | boolean | undefined> = Object.create(null);
  for (const [key, spec] of Object.entries(all)) {
    flags[key] = spec.type === "boolean" ? false : spec.multiple ? [] : undefined;
  }
  const positionals: string[] = [];

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith("--") && arg.length > 2) {
      const eq = arg.indexOf("=");
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
    } else if (/^-[A-Za-z]$/.test(arg)) {
      const long = by_letter.get(arg.slice(1));
      if (!long) throw new UsageError(`unknown option ${arg}`);
      name = long;
    } else {
      positionals.push(arg);
      continue;
    }

    const key = by_name.get(name);
    const spec = key === undefined ? undefined : all[key];
    if (key === undefined || spec === undefined) throw new UsageError(`unknown option --${name}`);

    if (spec.type === "boolean") {
      if (inline === undefined || inline === "true") flags[key] = true;
      else if (inline === "false") flags[key] = false;
      else throw new UsageError(`option --${name} takes no value (got "${inline}")`);
      continue;
    }

    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith("--") && next.length > 2)) {
        throw new UsageError(`option --${name} needs a value`);
      }
      value = next;
      i++;
    }
    if (spec.multiple) (flags[key] as string[]).push(value);
    else if (flags[key] !== undefined) throw new UsageError(`option --${name} given more than once`);
    else flags[key] = value;
  }
  return { flags: flags as ParsedArgs<WithCommon<S>>["flags"], positionals };
}

/** Checks the number of positional arguments; `names` are used in the error message. */
export function expect_positionals(positionals: readonly string[], names: readonly string[]): string[] {
  if (positionals.length < names.length) {
    throw new UsageError(`missing argument <${names[positionals.length]}>`);
  }
  if (positionals.length > names.length) {
    throw new UsageError(`unexpected argument "${positionals[names.length]}"`);
  }
  return [...positionals];
}

/** Parses a positive integer option value (e.g. --limit, --port). */
export function int_option(name: string, value: string | undefined, range: { min: number; max: number }): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be an integer (got "${value}")`);
  const n = Number(value);
  if (n < range.min || n > range.max) throw new UsageError(`--${name} must be between ${range.min} and ${range.max}`);
  return n;
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/**
 * Parses a duration option: a whole number of seconds, or with a unit s, m, h or d (`90m`,
 * `24h`, `7d`). Returns seconds, at most `max`; 0 is returned as 0 (the caller says what it means).
 */
export function duration_option(name: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d{1,9})([smhd]?)$/.exec(value);
  if (match === null) throw new UsageError(`--${name} must be a duration such as 3600, 90m, 24h or 7d (got "${value}")`);
  const seconds = Number(match[1]) * DURATION_UNITS[match[2] || "s"]!;
  if (seconds > max) throw new UsageError(`--${name} must be at most ${max} seconds`);
  return seconds;
}
