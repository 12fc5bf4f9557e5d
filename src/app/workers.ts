/**
 * `idp serve --workers N` (IDP_WORKERS, `auto` = one per core): every core of one machine.
 *
 * The primary process serves no HTTP. It checks that the port is free (a plain bind, which fails
 * next to any listener, SO_REUSEPORT or not), applies the migrations once, then starts N child
 * processes of the same executable with IDP_WORKER set. Each worker is a complete `idp serve`
 * that listens with SO_REUSEPORT, so the kernel spreads new connections over them; sharing the
 * port this way is deliberate here only (without --workers a second server on the port fails).
 * Worker 1 starts alone first (it may seed the demo data or move the demo client to the issuer,
 * and create the first keys), the others once it listens.
 *
 * Supervision: a worker that dies is started again after a delay that doubles with each death
 * (0.25 s up to 8 s); more than MAX_RESTARTS deaths within a minute is a crash loop: the primary
 * stops the others and exits 1. SIGTERM or SIGINT to the primary (main.ts aborts `signal`) is
 * passed to every worker as SIGTERM; each drains as a single server does (server.ts stop()), and
 * the primary exits 0 once all have exited. A worker whose primary is gone (killed with -9)
 * notices within a second (its parent changes) and stops gracefully too.
 *
 * What each worker keeps to itself, and what that means, is in README.md ("All cores").
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Log } from "../oidc/provider.ts";

/** The environment variable that makes a process a worker: `{"index":k,"count":N,"primary":pid,"port":p}`. */
export const WORKER_VARIABLE = "IDP_WORKER";

/** `restarted`: started again after a death (it prints no start hints a second time). */
export type WorkerRole = { index: number; count: number; primary: number; port: number; restarted?: boolean };

/** Deaths within RESTART_WINDOW_MS after which the primary gives up (a crash loop must not spin). */
export const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
const FIRST_RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 8_000;
/** The file descriptor on which a worker tells the primary it listens. */
const READY_FD = 3;

/** The worker count a setting means: `auto` is the number of cores this process may use. */
export function worker_count(setting: number | "auto"): number {
  return setting === "auto" ? Math.max(1, availableParallelism()) : setting;
}

/** This process's role under a primary, or null when it was started by hand. */
export function worker_role(env: Record<string, string | undefined>): WorkerRole | null {
  const text = env[WORKER_VARIABLE];
  if (text === undefined || text === "") return null;
  let role: unknown;
  try {
    role = JSON.parse(text);
  } catch {
    role = null;
  }
  const r = role as Partial<WorkerRole> | null;
  const whole = (n: unknown, min: number) => Number.isInteger(n) && (n as number) >= min;
  if (
    r === null ||
    typeof r !== "object" ||
    !whole(r.index, 1) ||
    !whole(r.count, 1) ||
    !whole(r.primary, 1) ||
    !whole(r.port, 1) ||
    r.index! > r.count! ||
    (r.restarted !== undefined && typeof r.restarted !== "boolean")
  ) {
    throw new Error(`${WORKER_VARIABLE} is set by \`idp serve --workers\` for its workers; do not set it yourself`);
  }
  return r as WorkerRole;
}

/** Tells the primary that this worker listens (the pipe it opened as file descriptor 3). */
export function report_ready(): void {
  writeSync(READY_FD, "ready\n");
}

/** Calls `stop` once when the primary is gone (this process was handed to another parent). */
export function watch_primary(role: WorkerRole, stop: () => void): () => void {
  const timer = setInterval(() => {
    if (process.ppid === role.primary) return;
    clearInterval(timer);
    stop();
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}

export type PrimaryOptions = {
  /** How many workers. */
  count: number;
  /** The port every worker listens on (already checked free, a port 0 already chosen). */
  port: number;
  /** The command that runs this program again with the same arguments (executable first). */
  command: readonly string[];
  /** The workers' environment (IDP_WORKER is added). */
  env: Record<string, string | undefined>;
  log: Log;
  /** Aborted on SIGTERM/SIGINT: the workers are stopped, then run_primary resolves. */
  signal: AbortSignal | undefined;
  /** Called once every worker listens. */
  on_ready?: (pids: number[]) => void;
};

type Slot = { index: number; child: ChildProcess | null; ready: boolean; started: number };

/** Runs the workers until `signal` aborts (resolves 0) or they cannot be kept running (resolves 1). */
export async function run_primary(options: PrimaryOptions): Promise<number> {
  const { count, log } = options;
  const slots: Slot[] = Array.from({ length: count }, (_, i) => ({ index: i + 1, child: null, ready: false, started: 0 }));
  const deaths: number[] = [];
  let stopping = false;
  let failed = false;
  let wake: () => void = () => {};
  const changed = () => wake();

  // A second signal makes main.ts exit at once: the workers go with the primary, not on their own.
  const kill_all = () => {
    for (const slot of slots) if (slot.child !== null && slot.child.exitCode === null && slot.child.signalCode === null) slot.child.kill("SIGKILL");
  };
  process.on("exit", kill_all);

  const launch = (slot: Slot): Promise<boolean> => {
    const [executable, ...args] = options.command;
    const role: WorkerRole = { index: slot.index, count, primary: process.pid, port: options.port, ...(slot.started > 0 ? { restarted: true } : {}) };
    slot.started++;
    const env = { ...options.env, [WORKER_VARIABLE]: JSON.stringify(role) };
    const child = spawn(executable!, args, { env, stdio: ["ignore", "inherit", "inherit", "pipe"] });
    slot.child = child;
    slot.ready = false;
    return new Promise<boolean>((settle) => {
      const pipe = child.stdio[READY_FD] as NodeJS.ReadableStream | null;
      pipe?.on("data", () => {
        if (slot.ready || slot.child !== child) return;
        slot.ready = true;
        log({ level: "info", msg: "worker ready", worker: slot.index, pid: child.pid });
        settle(true);
      });
      pipe?.on("error", () => {});
      child.on("error", (error) => {
        log({ level: "error", msg: "worker could not be started", worker: slot.index, error: error.message });
      });
      child.on("exit", (code, signal) => {
        if (slot.child === child) slot.child = null;
        settle(false);
        if (!stopping) log({ level: "error", msg: "worker exited", worker: slot.index, pid: child.pid, code, signal });
        changed();
      });
    });
  };

  const stop_all = async (): Promise<void> => {
    stopping = true;
    const exits = slots.map((slot) => {
      const child = slot.child;
      if (child === null || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise<void>((done) => child.once("exit", () => done()));
      child.kill("SIGTERM");
      return exited;
    });
    await Promise.all(exits);
  };

  try {
    // Worker 1 alone first: it seeds, follows the issuer and creates the first keys.
    if (!(await launch(slots[0]!))) {
      log({ level: "error", msg: "worker 1 exited before it listened" });
      await stop_all();
      return 1;
    }
    const rest = await Promise.all(slots.slice(1).map(launch));
    if (rest.includes(false)) {
      log({ level: "error", msg: "a worker exited before it listened" });
      await stop_all();
      return 1;
    }
    options.on_ready?.(slots.map((slot) => slot.child?.pid ?? 0));

    const aborted = new Promise<void>((done) => {
      if (options.signal === undefined) return;
      if (options.signal.aborted) return done();
      options.signal.addEventListener("abort", () => done(), { once: true });
    });
    let delay = FIRST_RESTART_DELAY_MS;
    for (;;) {
      const waiting = new Promise<void>((done) => (wake = done));
      const dead = slots.filter((slot) => slot.child === null);
      if (dead.length === 0) {
        await Promise.race([waiting, aborted]);
        if (options.signal?.aborted) break;
        continue;
      }
      const now = Date.now();
      deaths.push(...dead.map(() => now));
      while (deaths.length > 0 && deaths[0]! < now - RESTART_WINDOW_MS) deaths.shift();
      if (deaths.length > MAX_RESTARTS) {
        log({ level: "error", msg: "workers keep dying: giving up", deaths_last_minute: deaths.length });
        failed = true;
        break;
      }
      // Backoff: a worker that dies at once again must not make the primary spin. A quiet
      // minute (no other death in the window) forgives earlier deaths; otherwise the delay keeps
      // doubling, whether the worker died before it listened or after.
      if (deaths.length === dead.length) delay = FIRST_RESTART_DELAY_MS;
      const pause = new Promise<void>((done) => setTimeout(done, delay));
      await Promise.race([pause, aborted]);
      if (options.signal?.aborted) break;
      delay = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
      const restarted = await Promise.all(dead.map((slot) => (slot.child === null ? launch(slot) : Promise.resolve(true))));
      for (const [i, ok] of restarted.entries()) if (ok) log({ level: "info", msg: "worker restarted", worker: dead[i]!.index, pid: dead[i]!.child?.pid });
    }
    await stop_all();
    return failed ? 1 : 0;
  } finally {
    process.off("exit", kill_all);
  }
}
