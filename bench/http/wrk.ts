// Running wrk and the servers under test, each pinned to its own core when taskset exists.
import type { Subprocess } from "bun";
import { readFileSync } from "node:fs";

export type Load = {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non_2xx: number;
  /** Cores' worth of CPU the server used during the run (1 = all of its core). */
  server_cpu: number;
  /** Cores' worth of CPU used by everything else on the machine meanwhile (not server, not wrk). */
  other_cpu: number;
  /** Cores' worth of CPU wrk used (near 1: wrk, not the server, may be the limit). */
  wrk_cpu: number;
};

/** Busy CPU seconds of the whole machine so far (all cores), from /proc/stat; NaN without /proc. */
export function machine_busy_seconds(): number {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = line as number[];
    return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Cores' worth of CPU the machine is using right now, over `ms`. */
export async function machine_load(ms = 1000): Promise<number> {
  const before = machine_busy_seconds();
  await Bun.sleep(ms);
  return (machine_busy_seconds() - before) / (ms / 1000);
}

/** CPU seconds a process has used so far (user + system), from /proc; NaN where there is no /proc. */
export function cpu_seconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return Number.NaN;
  }
}

export const has = (tool: string) => Bun.which(tool) !== null;

/** `taskset -c <cpu>` in front of a command, or nothing when taskset is missing. */
export function pinned(cpu: string | undefined, command: string[]): string[] {
  return cpu !== undefined && has("taskset") ? ["taskset", "-c", cpu, ...command] : command;
}

function ms(value: string, unit: string): number {
  const n = Number(value);
  return unit === "us" ? n / 1000 : unit === "s" ? n * 1000 : unit === "m" ? n * 60_000 : n;
}

/** Reads wrk's report: requests/s, latency percentiles, socket errors and non-2xx answers. */
export function parse_wrk(out: string): Load {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!rps) throw new Error(`wrk printed no Requests/sec:\n${out}`);
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(out);
    return m ? ms(m[1]!, m[2]!) : Number.NaN;
  };
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  const non = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  return {
    rps: Number(rps[1]),
    p50_ms: pct("50"),
    p99_ms: pct("99"),
    errors,
    non_2xx: non ? Number(non[1]) : 0,
    server_cpu: Number.NaN,
    other_cpu: Number.NaN,
    wrk_cpu: Number.NaN,
  };
}

export type WrkOptions = { threads: number; connections: number; seconds: number; cpu: string | undefined };

/** Loads `url`; `server_pid` lets the result say how much of a core the server got meanwhile. */
export async function wrk(url: string, o: WrkOptions, server_pid?: number): Promise<Load> {
  const cpu_before = server_pid === undefined ? Number.NaN : cpu_seconds(server_pid);
  const busy_before = machine_busy_seconds();
  const t0 = performance.now();
  const command = pinned(o.cpu, ["wrk", `-t${o.threads}`, `-c${o.connections}`, `-d${o.seconds}s`, "--latency", url]);
  const proc = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}: ${err}`);
  const seconds = (performance.now() - t0) / 1000;
  const load = parse_wrk(out);
  const server = server_pid === undefined ? 0 : cpu_seconds(server_pid) - cpu_before;
  const wrk_cpu = Number(proc.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1e6; // µs
  if (server_pid !== undefined) load.server_cpu = server / seconds;
  load.wrk_cpu = wrk_cpu / seconds;
  load.other_cpu = Math.max(0, (machine_busy_seconds() - busy_before - server - wrk_cpu) / seconds);
  return load;
}

export type Started = { proc: Subprocess; base: string };

/** A port nothing listens on now (the kernel picks it), so a stale server is never measured. */
export async function free_port(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Starts `bun <file>` with PORT set, waits until it answers `probe`. */
export async function start_server(file: string, cpu: string | undefined, bun_flags: string[] = []): Promise<Started> {
  const port = await free_port();
  const command = pinned(cpu, [process.execPath, ...bun_flags, file]);
  const proc = Bun.spawn(command, { env: { ...process.env, PORT: String(port), NODE_ENV: "production" }, stdout: "ignore", stderr: "inherit" });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${file} exited with ${proc.exitCode} before listening`);
    try {
      await fetch(`${base}/json`);
      return { proc, base };
    } catch {
      await Bun.sleep(50);
    }
  }
  proc.kill();
  throw new Error(`${file} did not listen on port ${port} within 15 s`);
}

export async function stop_server(s: Started): Promise<void> {
  s.proc.kill("SIGTERM");
  const timer = setTimeout(() => s.proc.kill("SIGKILL"), 5000);
  await s.proc.exited;
  clearTimeout(timer);
}
