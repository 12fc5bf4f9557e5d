/** The process and timer primitives of runtime.ts on Deno. */
import { setTimeout as wait } from "node:timers/promises";

/** `deno compile` marks the runtime it embeds as standalone. */
export function is_compiled_executable(): boolean {
  return Deno.build.standalone;
}

export function sleep(ms: number): Promise<void> {
  return wait(ms);
}

export function read_stdin(): Promise<string> {
  return new Response(Deno.stdin.readable).text();
}

/**
 * With `--allow-env` for every variable, the whole environment; with a list (`--allow-env=IDP_*,PORT`),
 * the variables of `names` that the list grants and that are set: reading any other would throw
 * NotCapable, and the list cannot be enumerated.
 */
export function environment(names: readonly string[]): Record<string, string | undefined> {
  if (Deno.permissions.querySync({ name: "env" }).state === "granted") return Deno.env.toObject();
  const env: Record<string, string | undefined> = {};
  for (const name of names) {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") continue;
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** `--allow-net` grants `host`:`port` (an IPv6 address in brackets, as Deno writes it). */
export function may_listen(host: string, port: number): boolean {
  const name = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return Deno.permissions.querySync({ name: "net", host: `${name}:${port}` }).state === "granted";
}
