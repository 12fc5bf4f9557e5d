/**
 * Runs the CLI in-process against a fresh SQLite file per test directory.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run_cli } from "../../src/cli/index.ts";
import { open_store } from "../../src/store/open.ts";

export type CliResult = { code: number; stdout: string; stderr: string; json<T = unknown>(): T };

export type Sandbox = {
  dir: string;
  env: Record<string, string>;
  run(argv: string[], options?: { stdin?: string; env?: Record<string, string> }): Promise<CliResult>;
  cleanup(): void;
};

/** A temporary directory with its own database; argon2 is cheap so tests stay fast. */
export function sandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), "idp-cli-"));
  const env: Record<string, string> = {
    DATABASE_URL: `sqlite:${join(dir, "x.sqlite")}`,
    IDP_ARGON2_MEMORY_KIB: "1024",
    IDP_ARGON2_TIME_COST: "1",
    IDP_SIGNING_ALGS: "RS256,ES256",
  };
  return {
    dir,
    env,
    async run(argv, options = {}) {
      let stdout = "";
      let stderr = "";
      const code = await run_cli(argv, {
        stdin: options.stdin ?? "",
        stdout: (s) => void (stdout += s),
        stderr: (s) => void (stderr += s),
        env: { ...env, ...options.env },
      });
      return { code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T };
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Opens the sandbox's database for `body` (to check what a command stored), then closes it. */
export async function with_store<T>(box: Sandbox, body: (store: Awaited<ReturnType<typeof open_store>>) => Promise<T>): Promise<T> {
  const store = await open_store(box.env.DATABASE_URL!);
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}
