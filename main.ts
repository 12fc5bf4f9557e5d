#!/usr/bin/env bun
/**
 * Entry point of the `idp` executable: the server and the admin CLI in one binary.
 * All the work happens in run_cli (src/cli/index.ts); this file only wires the process to it.
 */
import { is_server_command, run_cli } from "./src/cli/index.ts";

const argv = process.argv.slice(2);
const stop = new AbortController();

// The server stops cleanly on the first SIGINT/SIGTERM; a second one, or one during an admin
// command, ends the process at once.
if (is_server_command(argv)) {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stop.signal.aborted) process.exit(130);
      stop.abort();
    });
  }
}

// `idp keys list | head`: a reader that closes the pipe early is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

const code = await run_cli(argv, {
  stdin: () => Bun.stdin.text(),
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env,
  signal: stop.signal,
});
process.exitCode = code;
