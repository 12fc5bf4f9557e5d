/**
 * Starting a program under Bun or Deno from a bun test and reading the JSON lines it prints
 * (tests/runtime/fixtures/serve.ts, tests/runtime/deno/*.ts, main.ts under Deno).
 */
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { spawn, type Child } from "../helpers/spawn.ts";

export const ROOT = join(import.meta.dirname, "..", "..");
/** The Deno binary of the `deno` dev dependency (`npx deno`). */
export const DENO = join(ROOT, "node_modules", ".bin", "deno");

export type Started = {
  proc: Child;
  /** The next line of stdout, parsed as JSON; fails with stderr when the process ends first. */
  line(ms?: number): Promise<Record<string, unknown>>;
  /** All of stderr once the process has ended. */
  stderr(): Promise<string>;
};

export function start(cmd: string[], env: Record<string, string | undefined> = process.env, cwd = ROOT): Started {
  const proc = spawn(cmd, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  let stderr: Promise<string> | undefined;
  const read_stderr = () => (stderr ??= new Response(proc.stderr).text());
  return {
    proc,
    stderr: read_stderr,
    async line(ms = 30_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const newline = buffered.indexOf("\n");
        if (newline !== -1) {
          const text = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          return JSON.parse(text);
        }
        const left = deadline - Date.now();
        const chunk = await Promise.race([reader.read(), sleep(Math.max(left, 0)).then(() => null)]);
        if (chunk === null) throw new Error(`no line from ${cmd.join(" ")} within ${ms} ms`);
        if (chunk.done) throw new Error(`${cmd.join(" ")} ended (${await proc.exited}) without a line:\n${buffered}\n${await read_stderr()}`);
        buffered += decoder.decode(chunk.value, { stream: true });
      }
    },
  };
}

/** Runs a program to its end: exit code, stdout, stderr. */
export async function run(cmd: string[], env: Record<string, string | undefined> = process.env, cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = spawn(cmd, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}
