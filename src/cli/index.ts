/**
 * The command line of `idp`, callable in-process: `run_cli(argv, io)` runs one command and
 * resolves to its exit code. main.ts is a thin wrapper that passes the process's I/O.
 *
 * Exit codes: 0 success; 1 the command failed (configuration, unknown user/client, conflict,
 * bad value, database unavailable); 2 usage error (unknown command or option, missing argument).
 */
import { ConfigError } from "../app/config.ts";
import { KeyRingError } from "../oidc/keys/errors.ts";
import { StoreConflictError, StoreError, StoreReferenceError, StoreUnavailableError } from "../store/types.ts";
import { COMMANDS } from "./commands.ts";
import { CliContext, type CliIo } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import { help_for } from "./help.ts";
import { write_json } from "./output.ts";
import { parse_command } from "./spec.ts";
import { VERSION } from "./version.ts";

export type { CliIo } from "./context.ts";

/** A top-level command of the table (own properties only: `idp constructor` is an unknown command, not Object's). */
function known(command: string | undefined): boolean {
  return command !== undefined && Object.hasOwn(COMMANDS, command);
}

/** The arguments before `--` (after it everything is positional). */
function option_part(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf("--");
  return end === -1 ? argv : argv.slice(0, end);
}

async function dispatch(ctx: CliContext, argv: string[]): Promise<void> {
  const out = ctx.io.stdout;
  const [first, ...rest] = argv;
  if (first === "--version" || first === "-v" || first === "version") {
    return ctx.emit({ version: VERSION }, (write) => write(`idp ${VERSION}\n`));
  }
  if (first === "help" || first === "--help" || first === "-h") {
    const topic = first === "help" ? rest[0] : undefined;
    if (topic !== undefined && !known(topic)) throw new UsageError(`unknown command "${topic}"`);
    return out(help_for(topic));
  }

  // `idp` alone, or `idp --port 8080`, starts the server.
  const command = first === undefined || first.startsWith("-") ? "serve" : first;
  const args = command === first ? rest : argv;
  if (option_part(args).some((a) => a === "--help" || a === "-h")) {
    if (!known(command)) throw new UsageError(`unknown command "${command}"`);
    return out(help_for(command));
  }
  if (!known(command)) throw new UsageError(`unknown command "${command}"`);
  // The command's declared options are the only ones its parser accepts.
  const { command: found, args: parsed } = parse_command(COMMANDS[command]!, command, args);
  return found.run(ctx, parsed);
}

/** The command word the user typed, to point them at the right help. */
function command_of(argv: readonly string[]): string | undefined {
  const first = argv[0];
  return first && first in COMMANDS ? first : undefined;
}

/** Turns an error into a message and an exit code; only unexpected errors may show a stack. */
function describe(error: unknown, debug: boolean): { message: string; code: number } {
  if (error instanceof CliError) return { message: error.message, code: error.exit_code };
  if (error instanceof ConfigError) return { message: error.message, code: 1 };
  if (error instanceof StoreUnavailableError) return { message: `database unavailable: ${error.message}`, code: 1 };
  // The signing keys cannot be used as stored (oidc/keys/sealed_keys.ts: IDP_SECRET_KEY missing or another key).
  if (error instanceof KeyRingError) return { message: error.message, code: 1 };
  if (error instanceof StoreConflictError || error instanceof StoreReferenceError || error instanceof StoreError) {
    return { message: error.message, code: 1 };
  }
  const err = error instanceof Error ? error : new Error(String(error));
  return { message: debug && err.stack ? err.stack : `unexpected error: ${err.message}`, code: 1 };
}

/** True when `argv` starts the server (`idp`, `idp serve ...`, `idp --port 8080`). */
export function is_server_command(argv: readonly string[]): boolean {
  const first = argv[0];
  if (first === "--help" || first === "-h" || first === "--version" || first === "-v") return false;
  return first === undefined || first === "serve" || first.startsWith("-");
}

/** Runs one command line (without the program name); resolves to the exit code. */
export async function run_cli(argv: string[], io: CliIo): Promise<number> {
  const json = option_part(argv).some((a) => a === "--json" || a === "--json=true");
  const ctx = new CliContext(io, json);
  try {
    await dispatch(ctx, argv);
    return 0;
  } catch (error) {
    const { message, code } = describe(error, Boolean(io.env.IDP_DEBUG));
    if (json) {
      write_json(io.stderr, { error: message, exit_code: code });
    } else {
      io.stderr(`error: ${message}\n`);
      if (error instanceof UsageError) {
        const command = command_of(argv);
        io.stderr(`Run \`idp ${command ? `${command} ` : ""}--help\` for usage.\n`);
      }
    }
    return code;
  } finally {
    await ctx.close();
  }
}

export { VERSION };
