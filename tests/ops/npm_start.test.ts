/**
 * `npm start` as a new user runs it, stopped with SIGTERM (a process manager, `kill`) or SIGINT
 * (Ctrl-C): the server stops gracefully and no process is left behind holding the port.
 * The process tree comes from `ps` (tests/helpers/process_tree.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "../helpers/test_api.ts";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { free_port } from "../helpers/provider.ts";
import { alive, answers, descendants, pump, wait_for } from "../helpers/process_tree.ts";
import { base_env, ROOT } from "./process.ts";
import { spawn, which } from "../helpers/spawn.ts";
import { setTimeout as sleep } from "node:timers/promises";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "idp-npm-start-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(which("ps") === null || which("npm") === null)("npm start", () => {
  const cases = [
    { signal: "SIGTERM", group: false, what: "SIGTERM to the npm process" },
    { signal: "SIGINT", group: false, what: "SIGINT to the npm process" },
    // What a terminal does on Ctrl-C: every process of the foreground group gets SIGINT, and npm
    // and the idp bin forward theirs too. The burst must still be one graceful stop (exit 0), not
    // "a second signal" (130).
    { signal: "SIGINT", group: true, what: "Ctrl-C (SIGINT to the whole process group)" },
  ] as const;
  for (const { signal, group, what } of cases) {
    test.skipIf(group && which("setsid") === null)(
      `${what} stops the server gracefully; no process is left and the port is closed`,
      async () => {
        const port = await free_port();
        // A fresh machine after `npm install`: Bun only in node_modules.
        const path = (process.env.PATH ?? "/usr/bin:/bin")
          .split(delimiter)
          .filter((d) => d !== "" && !existsSync(join(d, "bun")))
          .join(delimiter);
        const env = { ...base_env(`sqlite:${join(dir, `${signal}.sqlite`)}`), PATH: path, PORT: String(port), IDP_LOG_REQUESTS: "false" };
        // setsid: a process group of its own (npm's pid is its id), as a terminal's foreground job.
        const npm = spawn(group ? ["setsid", "npm", "start"] : ["npm", "start"], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
        let output = "";
        const pumped = Promise.all([pump(npm.stdout, (text) => void (output += text)), pump(npm.stderr, (text) => void (output += text))]);
        const url = `http://127.0.0.1:${port}/healthz`;
        let tree: number[] = [];
        try {
          await wait_for(() => answers(url), 30_000, `npm start to listen:\n${output}`);
          tree = descendants(npm.pid);
          expect(tree.length).toBeGreaterThan(0);
          if (group) process.kill(-npm.pid, signal);
          else npm.kill(signal);
          const code = await Promise.race([npm.exited, sleep(20_000).then(() => "timeout" as const)]);
          expect(code).not.toBe("timeout");
          await wait_for(() => tree.every((pid) => !alive(pid)), 5_000, `every child of npm to exit (left: ${tree.filter(alive).join(", ")})`);
          expect(await answers(url)).toBe(false);
          await pumped;
          expect(output).toContain('"msg":"stopped"');
          expect(code).toBe(0);
        } finally {
          for (const pid of [npm.pid, ...tree]) if (alive(pid)) process.kill(pid, "SIGKILL");
        }
      },
      60_000,
    );
  }
});
