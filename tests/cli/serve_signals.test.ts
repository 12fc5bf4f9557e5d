/**
 * `idp serve` through the package's bin (bin/idp.mjs, Bun started by Node), stopped the ways an
 * operator stops it: SIGTERM to the node process, and SIGTERM to `npx` (a process manager, or
 * `kill` on the pid npx printed), where npm's shell in between does not pass the signal on. The
 * server stops gracefully, no process is left behind and the port is free. The process tree comes
 * from `ps` (tests/helpers/process_tree.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { spawn, which } from "../helpers/spawn.ts";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { free_port } from "../helpers/provider.ts";
import { alive, answers, descendants, pump, wait_for } from "../helpers/process_tree.ts";
import { base_env, ROOT } from "../ops/process.ts";
import { setTimeout as sleep } from "node:timers/promises";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "idp-serve-signals-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The PATH without any directory that holds a `bun`: a fresh machine after `npm install`. */
function path_without_bun(): string {
  return (process.env.PATH ?? "/usr/bin:/bin")
    .split(delimiter)
    .filter((d) => d !== "" && !existsSync(join(d, "bun")))
    .join(delimiter);
}

/**
 * Starts `argv` (which runs `idp serve`) on a free port, waits until it answers, sends `signal`
 * to the process started (with `group`, to its whole process group, as a terminal's Ctrl-C), and
 * checks that the whole tree is gone, the port closed and the server stopped gracefully.
 */
async function stops_on(name: string, argv: string[], signal: "SIGTERM" | "SIGINT" = "SIGTERM", group = false): Promise<{ code: number; output: string }> {
  const port = await free_port();
  const env = { ...base_env(`sqlite:${join(dir, `${name}.sqlite`)}`), PATH: path_without_bun(), PORT: String(port), IDP_LOG_REQUESTS: "false" };
  // setsid: a process group of its own (the pid is its id), as a terminal's foreground job.
  const proc = spawn(group ? ["setsid", ...argv] : argv, { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
  let output = "";
  const pumped = Promise.all([pump(proc.stdout, (text) => void (output += text)), pump(proc.stderr, (text) => void (output += text))]);
  const url = `http://127.0.0.1:${port}/healthz`;
  let tree: number[] = [];
  try {
    await wait_for(() => answers(url), 30_000, `${name} to listen:\n${output}`);
    tree = descendants(proc.pid);
    expect(tree.length).toBeGreaterThan(0);
    if (group) process.kill(-proc.pid, signal);
    else proc.kill(signal);
    const code = await Promise.race([proc.exited, sleep(20_000).then(() => "timeout" as const)]);
    expect(code).not.toBe("timeout");
    await wait_for(() => tree.every((pid) => !alive(pid)), 10_000, `every process of ${name} to exit (left: ${tree.filter(alive).join(", ")})`);
    expect(await answers(url)).toBe(false);
    await pumped;
    expect(output).toContain('"msg":"stopped"');
    return { code: code as number, output };
  } finally {
    for (const pid of [proc.pid, ...tree]) if (alive(pid)) process.kill(pid, "SIGKILL");
  }
}

describe.skipIf(which("ps") === null)("idp serve through bin/idp.mjs", () => {
  test("SIGTERM to `node bin/idp.mjs serve` stops the server; node exits with the server's code (0) and the port is free", async () => {
    const node = which("node", { PATH: path_without_bun() });
    if (node === null) throw new Error("node is needed (npm install runs on it)");
    const { code } = await stops_on("node", [node, join(ROOT, "bin", "idp.mjs"), "serve"]);
    expect(code).toBe(0);
  }, 60_000);

  test.skipIf(which("npx") === null)(
    "SIGTERM to `npx idp serve` stops the server too: no process is left holding the port",
    async () => {
      // npx exits as its shell did (killed by the signal); what matters is what it leaves behind.
      await stops_on("npx", ["npx", "--offline", "idp", "serve"]);
    },
    60_000,
  );

  test.skipIf(which("npx") === null || which("setsid") === null)(
    "Ctrl-C on `npx idp serve` (SIGINT to the whole group) is one graceful stop, not a second signal",
    async () => {
      await stops_on("npx-group", ["npx", "--offline", "idp", "serve"], "SIGINT", true);
    },
    60_000,
  );
});
