/**
 * Child processes for tests, on node:child_process so Bun and Deno run the same tests: `spawn`
 * (a running child with web streams, as Bun.spawn gives), `run` (to completion), `run_sync`,
 * `which`, and `idp_command`, the provider's entry point under the runtime that runs the tests.
 */
import { type ChildProcess, spawn as node_spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { Readable } from "node:stream";
import { constants as os_constants } from "node:os";
import { RUNTIME } from "../../src/platform/which.ts";

export const ROOT = join(import.meta.dirname, "..", "..");
export const MAIN = join(ROOT, "main.ts");
/** The Bun of node_modules (what `npm test` runs), for the tests that are about Bun itself. */
export const BUN = join(ROOT, "node_modules", ".bin", "bun");

/**
 * The permissions the provider asks for on Deno (`deno run`): the network, its files and
 * settings, its workers (`serve --workers`), the host name, and the native libraries (libsodium,
 * OpenSSL) it loads when present.
 */
export const DENO_RUN_FLAGS = ["--node-modules-dir=manual", "--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-run", "--allow-sys", "--allow-ffi"];

/** `idp` as an operator runs it from a checkout, on the runtime of this test process: `bun run main.ts` or `deno run … main.ts`. */
export function idp_command(): string[] {
  return RUNTIME === "bun" ? [BUN, "run", MAIN] : [process.execPath, "run", ...DENO_RUN_FLAGS, MAIN];
}

/** A TypeScript file of ours run by the runtime of this test process: `bun <file>` or `deno run … <file>`. */
export function script_command(path: string): string[] {
  return RUNTIME === "bun" ? [process.execPath, path] : [process.execPath, "run", ...DENO_RUN_FLAGS, path];
}

/** What a child reads and where its output goes: a pipe, nothing, this process's, or a file (its path). */
export type Stdio = "pipe" | "ignore" | "inherit" | { file: string };

export type SpawnOptions = {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Its stdin: "ignore" (the default), or "pipe" to `write` to it. */
  stdin?: "ignore" | "pipe" | "inherit";
  /** Text or bytes written to its stdin, which is then closed (instead of `stdin`). */
  input?: string | Uint8Array;
  stdout?: Stdio;
  stderr?: Stdio;
};

export type Child = {
  pid: number;
  /** Resolves to the exit code, or 128 + the signal's number when a signal ended it (as a shell, and Bun, say). */
  exited: Promise<number>;
  /** null while it runs, or when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended it, or null. */
  readonly signalCode: NodeJS.Signals | null;
  kill(signal?: NodeJS.Signals | number): void;
  /** Its output, when piped (an empty stream otherwise). */
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  /** Writes to its stdin (with `stdin: "pipe"`). */
  write(text: string | Uint8Array): void;
  /** Closes its stdin. */
  end(): void;
};

function empty(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.close() });
}

/** Starts `argv[0]` with the rest as its arguments; nothing of this process's environment is passed on unless `env` is left out. */
export function spawn(argv: string[], options: SpawnOptions = {}): Child {
  const files: number[] = [];
  const stdio = (choice: Stdio | undefined, flags: string): "pipe" | "ignore" | "inherit" | number => {
    if (choice === undefined) return "pipe";
    if (typeof choice === "object") {
      const fd = openSync(choice.file, flags);
      files.push(fd);
      return fd;
    }
    return choice;
  };
  const child: ChildProcess = node_spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.input === undefined ? (options.stdin ?? "ignore") : "pipe", stdio(options.stdout, "w"), stdio(options.stderr, "w")],
  });
  for (const fd of files) closeSync(fd);
  const exited = new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code: number | null, signal: NodeJS.Signals | null) => resolve(code ?? 128 + (signal ? (os_constants.signals[signal] ?? 0) : 0)));
  });
  if (options.input !== undefined) child.stdin!.end(options.input);
  // An ended child's stdin may refuse a late write (EPIPE); the test sees the exit instead.
  child.stdin?.on("error", () => {});
  return {
    get pid() {
      return child.pid ?? -1;
    },
    exited,
    get exitCode() {
      return child.exitCode;
    },
    get signalCode() {
      return child.signalCode;
    },
    kill: (signal = "SIGTERM") => {
      // process.kill, not child.kill: Deno's ChildProcess.kill reports the signal it sent as how
      // the child ended even when the child caught it and exited 0, and sends nothing after a
      // first signal (denoland/deno#36643), so SIGTERM then SIGKILL would not kill.
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(child.pid, signal);
      } catch (error) {
        // Gone meanwhile, its exit not yet seen.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    },
    stdout: child.stdout ? (Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>) : empty(),
    stderr: child.stderr ? (Readable.toWeb(child.stderr) as unknown as ReadableStream<Uint8Array>) : empty(),
    write: (text) => void child.stdin!.write(text),
    end: () => void child.stdin!.end(),
  };
}

export type Ran = { code: number; stdout: string; stderr: string };

/** Runs a command to its end, its output collected. */
export async function run(argv: string[], options: Omit<SpawnOptions, "stdout" | "stderr"> = {}): Promise<Ran> {
  const child = spawn(argv, { ...options, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** Runs a command to its end, blocking (for a value a test file needs before its tests are declared). */
export function run_sync(argv: string[], options: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {}): Ran {
  const result = spawnSync(argv[0]!, argv.slice(1), { cwd: options.cwd, env: options.env, input: options.input, encoding: "utf8" });
  if (result.error) throw result.error;
  const code = result.status ?? 128 + (result.signal ? (os_constants.signals[result.signal] ?? 0) : 0);
  return { code, stdout: result.stdout, stderr: result.stderr };
}

/** The path of an executable `name` on PATH (this process's, or the one given), or null: what `which` answers. */
export function which(name: string, options: { PATH?: string } = {}): string | null {
  for (const dir of (options.PATH ?? process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const path = join(dir, name);
    try {
      // An execute bit, not accessSync(X_OK): on Deno that asks for the uid (--allow-sys).
      const stat = statSync(path);
      if (stat.isFile() && (stat.mode & 0o111) !== 0) return path;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** Collects everything a stream yields into `sink`, until it ends. */
export async function pump(stream: ReadableStream<Uint8Array>, sink: (text: string) => void): Promise<void> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    sink(decoder.decode(value, { stream: true }));
  }
}
