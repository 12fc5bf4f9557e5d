#!/usr/bin/env bun
/**
 * Entry point of the `idp` executable: the server and the admin CLI in one binary, on Bun or on
 * Deno (README, "Running on Deno"). All the work happens in run_cli (src/cli/index.ts); this
 * file only wires the process to it.
 */
import { ENVIRONMENT_NAMES } from "./src/app/config.ts";
import { is_server_command, run_cli } from "./src/cli/index.ts";
import { environment, is_compiled_executable, read_stdin } from "./src/platform/runtime.ts";

const argv = process.argv.slice(2);
const stop = new AbortController();
// Every variable the configuration reads; under Deno's `--allow-env=<list>`, only those granted.
const env = environment(ENVIRONMENT_NAMES);

// The server stops cleanly on the first SIGINT/SIGTERM; a second one, or one during an admin
// command, ends the process at once. A Ctrl-C reaches every process of the terminal's group, and
// npm and bin/idp.mjs forward it too: one keypress can arrive as two or three SIGINTs within
// milliseconds, so a SIGINT less than a second after the first counts as the same one.
// A worker of `idp serve --workers N` may get the terminal's SIGINT and its primary's SIGTERM
// for one stop: it counts every later signal as the same one (the primary, on a second signal,
// ends the workers itself).
const worker = Boolean(env.IDP_WORKER);
if (is_server_command(argv)) {
  let first_at = 0;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (!stop.signal.aborted) {
        first_at = Date.now();
        stop.abort();
      } else if (!worker && (signal === "SIGTERM" || Date.now() - first_at > 1000)) {
        process.exit(130);
      }
    });
  }
}

// `idp keys list | head`: a reader that closes the pipe early is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

const program = is_compiled_executable() ? [process.execPath] : [process.execPath, ...process.execArgv, process.argv[1]!];
const code = await run_cli(argv, {
  stdin: read_stdin,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env,
  signal: stop.signal,
  // This program again, for the workers of `idp serve --workers N` and the scheduled backups:
  // the compiled executable carries main.ts inside (argv[1] is its embedded path), `bun main.ts`
  // needs the script.
  self: [...program, ...argv],
  program,
});
process.exitCode = code;
