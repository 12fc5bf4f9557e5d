/** The process and timer primitives of runtime.ts on Bun. */

export function is_compiled_executable(): boolean {
  return Bun.isStandaloneExecutable;
}

export function sleep(ms: number): Promise<void> {
  return Bun.sleep(ms);
}

export function read_stdin(): Promise<string> {
  return Bun.stdin.text();
}

/** Bun lets a process read its whole environment. */
export function environment(_names: readonly string[]): Record<string, string | undefined> {
  return process.env;
}

/** Bun has no permissions. */
export function may_listen(_host: string, _port: number): boolean {
  return true;
}
