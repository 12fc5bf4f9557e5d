/**
 * The provider under test: `bun run main.ts serve` as a child process (tests/ops/process.ts) on
 * one database, with the same settings for the empty and the seeded one. Request rate limits off
 * (every request comes from 127.0.0.1), request logging off, argon2id at the provider's defaults;
 * the purge interval is chosen per phase (a day: off; a few seconds: the purge phase).
 */
import { readFileSync } from "node:fs";
import { spawn_server, type ServerProcess } from "../../tests/ops/process.ts";

// Not tests/ops/process.ts base_env: that one lowers argon2id and polls keys every second, and
// the sign-in figures here are at the provider's defaults.
export function start_server(url: string, purge_interval_seconds = 86400): Promise<ServerProcess> {
  return spawn_server({
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    DATABASE_URL: url,
    HOST: "127.0.0.1",
    IDP_RATE_LIMITS: "false",
    IDP_LOG_REQUESTS: "false",
    IDP_PURGE_INTERVAL_SECONDS: String(purge_interval_seconds),
  });
}

/** VmRSS and VmHWM of a process, in MiB (/proc/<pid>/status). */
export function memory_mib(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kib("VmRSS") / 1024, hwm: kib("VmHWM") / 1024 };
}

/** The load average, for the report (the machine is shared). */
export const load_average = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
