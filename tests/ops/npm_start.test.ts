/**
 * `npm start` as a new user runs it, stopped with SIGTERM (a process manager, `kill`) or SIGINT
 * (Ctrl-C): the server stops gracefully and no process is left behind holding the port.
 * Linux: the process tree is read from /proc.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { free_port } from "../helpers/provider.ts";
import { base_env, ROOT } from "./process.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "idp-npm-start-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The ids of every live descendant of `pid` (children, grandchildren...). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Exited meanwhile.
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, ppid] of parents) if (ppid === parent) (found.push(child), queue.push(child));
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

async function wait_for(probe: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

describe.skipIf(!existsSync("/proc/self/stat") || Bun.which("npm") === null)("npm start", () => {
  const cases = [
    { signal: "SIGTERM", group: false, what: "SIGTERM to the npm process" },
    { signal: "SIGINT", group: false, what: "SIGINT to the npm process" },
    // What a terminal does on Ctrl-C: every process of the foreground group gets SIGINT, and npm
    // and the idp bin forward theirs too. The burst must still be one graceful stop (exit 0), not
    // "a second signal" (130).
    { signal: "SIGINT", group: true, what: "Ctrl-C (SIGINT to the whole process group)" },
  ] as const;
  for (const { signal, group, what } of cases) {
    test.skipIf(group && Bun.which("setsid") === null)(`${what} stops the server gracefully; no process is left and the port is closed`, async () => {
      const port = free_port();
      // A fresh machine after `npm install`: Bun only in node_modules.
      const path = (process.env.PATH ?? "/usr/bin:/bin").split(delimiter).filter((d) => d !== "" && !existsSync(join(d, "bun"))).join(delimiter);
      const env = { ...base_env(`sqlite:${join(dir, `${signal}.sqlite`)}`), PATH: path, PORT: String(port), IDP_LOG_REQUESTS: "false" };
      // setsid: a process group of its own (npm's pid is its id), as a terminal's foreground job.
      const npm = Bun.spawn(group ? ["setsid", "npm", "start"] : ["npm", "start"], { cwd: ROOT, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      let output = "";
      const pump = async (stream: ReadableStream<Uint8Array>) => {
        const reader = stream.getReader();
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          output += decoder.decode(value, { stream: true });
        }
      };
      const pumped = Promise.all([pump(npm.stdout), pump(npm.stderr)]);
      const url = `http://127.0.0.1:${port}/healthz`;
      let tree: number[] = [];
      try {
        await wait_for(() => answers(url), 30_000, `npm start to listen:\n${output}`);
        tree = descendants(npm.pid);
        expect(tree.length).toBeGreaterThan(0);
        if (group) process.kill(-npm.pid, signal);
        else npm.kill(signal);
        const code = await Promise.race([npm.exited, Bun.sleep(20_000).then(() => "timeout" as const)]);
        expect(code).not.toBe("timeout");
        await wait_for(() => tree.every((pid) => !alive(pid)), 5_000, `every child of npm to exit (left: ${tree.filter(alive).join(", ")})`);
        expect(await answers(url)).toBe(false);
        await pumped;
        expect(output).toContain('"msg":"stopped"');
        expect(code).toBe(0);
      } finally {
        for (const pid of [npm.pid, ...tree]) if (alive(pid)) process.kill(pid, "SIGKILL");
      }
    }, 60_000);
  }
});
