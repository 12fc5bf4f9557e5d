/**
 * Errors a CLI command raises on purpose. `run_cli` prints their message (no stack trace) to
 * stderr and exits with their code: 1 for a failed command (unknown user, taken username, bad
 * URL, invalid configuration), 2 for a usage error (unknown command or option, missing argument).
 */

export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exit_code: number = 1,
  ) {
    super(message);
  }
}

/** The command line itself is wrong; the message is followed by a pointer to --help. */
export class UsageError extends CliError {
  override name = "UsageError";
  constructor(message: string) {
    super(message, 2);
  }
}
