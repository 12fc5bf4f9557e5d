/**
 * The supervisor of `idp serve --workers 2` (src/app/workers.ts; README "All cores") held to its
 * promises with real processes on a SQLite file: the restart back-off and the crash loop, no
 * orphans when the primary is killed with -9, and a second signal that ends everything at once.
 * Each test ends its group, so each starts its own (on one shared database file).
 *
 * Times are read from the kernel: a worker's start is its fork time (/proc/<pid>/stat field 22,
 * in clock ticks since boot), compared with /proc/uptime read just before the kill.
 */
import { afterAll, afterEach, beforeAll, describe, expect, RUNTIME, test } from "../helpers/test_api.ts";
import { run_sync } from "../helpers/spawn.ts";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_RESTARTS } from "../../src/app/workers.ts";
import { until } from "../helpers/until.ts";
import { base_env, spawn_server, type ServerProcess } from "../ops/process.ts";
import { setTimeout as sleep } from "node:timers/promises";

/** Clock ticks per second of /proc/<pid>/stat times (sysconf(_SC_CLK_TCK), 100 on Linux). */
const CLK_TCK = Number(run_sync(["getconf", "CLK_TCK"]).stdout.trim()) || 100;

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] state, [1] ppid, [19] starttime. */
function stat_of(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** Still running: exists and is not a zombie (an orphan's zombie waits for PID 1 to reap it; it runs nothing). */
function running(pid: number): boolean {
  const stat = stat_of(pid);
  return stat !== null && stat[0] !== "Z";
}

function pids_in_proc(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** Running children of `parent`. */
function children_of(parent: number): number[] {
  return pids_in_proc().filter((pid) => pid !== process.pid && stat_of(pid)?.[1] === String(parent) && running(pid));
}

/** Seconds since boot when the process was forked. */
function started_at(pid: number): number {
  return Number(stat_of(pid)![19]) / CLK_TCK;
}

function uptime(): number {
  return Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
}

/** Every running process that was started as a worker of `primary` (its IDP_WORKER names it), known or not. */
function group_left(primary: number): number[] {
  const marker = `"primary":${primary},`;
  return pids_in_proc().filter((pid) => {
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
      return environ.includes("IDP_WORKER=") && environ.includes(marker) && running(pid);
    } catch {
      return false;
    }
  });
}

/** Whether a plain listener (no SO_REUSEPORT) can take the port: nobody listens there any more. */
async function port_free(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise<boolean>((settle) => {
    probe.once("error", () => settle(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => settle(true)));
  });
}

/** The pids of the workers from the primary's log (the latest line per worker). */
function worker_pids(server: ServerProcess): Map<number, number> {
  const pids = new Map<number, number>();
  for (const line of server.logs()) if (line.msg === "worker ready") pids.set(line.worker as number, line.pid as number);
  return pids;
}

const count = (server: ServerProcess, msg: string) => server.logs().filter((line) => line.msg === msg).length;

// Bun only: Deno refuses --workers (src/fw/runtime/serve_deno.ts PORT_SHARING; tests/runtime/deno_server.test.ts).
describe.skipIf(RUNTIME !== "bun")("the supervisor of idp serve --workers 2 (Bun only: Deno refuses --workers)", () => {
  let dir: string;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;
  /** Every worker pid seen, to kill whatever a failed test leaves. */
  const seen = new Set<number>();

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "idp-supervisor-"));
    env = base_env(`sqlite:${join(dir, "idp.sqlite")}`, { IDP_LOG_REQUESTS: "false", IDP_WORKERS: "2" });
  });

  afterEach(async () => {
    if (server) {
      for (const pid of worker_pids(server).values()) seen.add(pid);
      if (server.proc.exitCode === null && server.proc.signalCode === null) server.proc.kill("SIGKILL");
      await server.proc.exited;
    }
    for (const pid of seen) if (running(pid)) process.kill(pid, "SIGKILL");
    server = undefined;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a worker that keeps dying: started again after 0.25, 0.5, 1, 2, 4 s; the 6th death in a minute stops the other and exits 1", async () => {
    server = await spawn_server(env);
    const primary = server.proc.pid;
    const first = worker_pids(server);
    const survivor = first.get(1)!;
    let victim = first.get(2)!;
    const known = new Set([survivor, victim]);
    const pauses: number[] = [];
    // Worker 2 is killed 6 times: the first two after they listen, the others the moment they
    // are forked (they die before they listen, the fastest crash loop). Worker 1 is left alone.
    for (let death = 1; death <= MAX_RESTARTS + 1; death++) {
      const killed_at = uptime();
      process.kill(victim, "SIGKILL");
      if (death > MAX_RESTARTS) break;
      const next = await until(() => children_of(primary).find((pid) => !known.has(pid)), 15_000, `worker 2 started again after death ${death}`);
      known.add(next);
      seen.add(next);
      pauses.push(started_at(next) - killed_at);
      // The first one started again is let listen (a worker that crashes after it served: its
      // restart succeeded, which must not reset the back-off while deaths go on); later ones die
      // at once.
      if (death === 1) await server.wait_for_log((line) => line.msg === "worker restarted" && line.pid === next, 15_000);
      victim = next;
    }
    const code = await server.proc.exited;

    // 0.25 s doubling with each death; /proc times are in ticks of 10 ms, and the machine is shared.
    const expected = [0.25, 0.5, 1, 2, 4];
    expect(pauses.length).toBe(expected.length);
    for (const [i, pause] of pauses.entries()) {
      expect(pause).toBeGreaterThanOrEqual(expected[i]! - 0.02);
      expect(pause).toBeLessThan(expected[i]! + 1);
    }
    expect(code).toBe(1);
    const gave_up = server.logs().find((line) => line.msg === "workers keep dying: giving up");
    expect(gave_up?.deaths_last_minute).toBe(MAX_RESTARTS + 1);
    expect(server.logs().filter((line) => line.msg === "worker exited" && line.worker === 2 && line.signal === "SIGKILL").length).toBe(MAX_RESTARTS + 1);
    expect(server.output()).toContain("the workers could not be kept running");
    // Worker 1 was never restarted, then stopped, gracefully: it drained and said so (a killed worker 2 never does).
    expect(worker_pids(server).get(1)).toBe(survivor);
    expect(running(survivor)).toBe(false);
    expect([count(server, "stopping"), count(server, "stopped")]).toEqual([1, 1]);
    expect(group_left(primary)).toEqual([]);
    expect(await port_free(server.port)).toBe(true);
  }, 45_000);

  test("the primary killed with -9: every worker notices within a second, stops gracefully, and the port is free", async () => {
    server = await spawn_server(env);
    const primary = server.proc.pid;
    const pids = [...worker_pids(server).values()];
    for (const pid of pids) seen.add(pid);
    expect(pids.length).toBe(2);
    expect(pids.every(running)).toBe(true);
    const killed = Date.now();
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    await until(() => (pids.every((pid) => !running(pid)) ? true : undefined), 10_000, "every worker gone");
    const took = Date.now() - killed;
    // Noticed within the watcher's 1 s tick, then an idle drain.
    expect(took).toBeLessThan(2_500);
    // Gracefully: both drained and said so (their stdout is still the test's pipe).
    await until(() => (count(server!, "stopped") === 2 ? true : undefined), 2_000, "two `stopped` lines");
    expect(count(server, "stopping")).toBe(2);
    expect(group_left(primary)).toEqual([]);
    expect(await port_free(server.port)).toBe(true);
  }, 30_000);

  test("SIGTERM twice: the primary exits at once and kills the workers that are still draining", async () => {
    // A long grace, and requests that never finish: on their own the workers would drain for a minute.
    server = await spawn_server({ ...env, IDP_SHUTDOWN_GRACE_SECONDS: "60" });
    const primary = server.proc.pid;
    const pids = [...worker_pids(server).values()];
    for (const pid of pids) seen.add(pid);
    // 24 connections, each a POST whose body never comes: the kernel spreads them over both
    // workers (by a hash of the addresses; both get none with a chance of 2^-23).
    const sockets = await Promise.all(
      Array.from(
        { length: 24 },
        () =>
          new Promise<Socket>((settle, fail) => {
            const socket = new Socket();
            socket.once("error", fail);
            socket.connect(server!.port, "127.0.0.1", () => {
              socket.write(`POST /token HTTP/1.1\r\nHost: 127.0.0.1:${server!.port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ngrant_type=`);
              settle(socket);
            });
          }),
      ),
    );
    const closed = Promise.all(sockets.map((socket) => new Promise<void>((done) => (socket.destroyed ? done() : socket.once("close", () => done())))));
    for (const socket of sockets) socket.on("error", () => {});
    await sleep(200);

    server.proc.kill("SIGTERM");
    await until(() => (count(server!, "stopping") === 2 ? true : undefined), 10_000, "both workers draining");
    await sleep(500);
    // Still draining: the first signal alone does not end them.
    expect(pids.every(running)).toBe(true);
    expect(server.proc.exitCode).toBeNull();

    const second = Date.now();
    server.proc.kill("SIGTERM");
    const code = await server.proc.exited;
    expect(Date.now() - second).toBeLessThan(1_000);
    expect(code).toBe(130);
    await until(() => (pids.every((pid) => !running(pid)) ? true : undefined), 1_000, "both workers killed");
    // Killed, not drained.
    expect(count(server, "stopped")).toBe(0);
    await closed;
    expect(group_left(primary)).toEqual([]);
    expect(await port_free(server.port)).toBe(true);
  }, 30_000);
});
