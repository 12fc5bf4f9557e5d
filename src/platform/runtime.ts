/**
 * The process and timer primitives of the runtime that code outside the runtime seam needs, so
 * the composition root and the protocol rules never name the runtime (docs/ARCHITECTURE.md).
 */

/** True in the single-file executable built by scripts/build.ts (`bun build --compile`), false under `bun run`. */
export function is_compiled_executable(): boolean {
  return Bun.isStandaloneExecutable;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return Bun.sleep(ms);
}
