/**
 * A server started through wrappers (npm, a shell, bin/idp.mjs) as a tree of processes: which
 * processes it is, whether they are alive, and whether its port still answers. The tree comes
 * from `ps` (procps), not from /proc: Deno lets a process read /proc only under --allow-all.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { run_sync } from "./spawn.ts";

/** The ids of every live descendant of `pid` (children, grandchildren...). */
export function descendants(pid: number): number[] {
  const ps = run_sync(["ps", "-e", "-o", "pid=,ppid="]);
  if (ps.code !== 0) throw new Error(`ps failed (${ps.code}): ${ps.stderr}`);
  const parents = new Map<number, number>();
  for (const line of ps.stdout.split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child !== undefined && parent !== undefined && !Number.isNaN(child) && !Number.isNaN(parent)) parents.set(child, parent);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, ppid] of parents) if (ppid === parent) found.push(child), queue.push(child);
  }
  return found;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether anything answers HTTP at `url` within a second. */
export async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

export async function wait_for(probe: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Collects everything a stream yields into `sink`, until it ends. */
export async function pump(stream: ReadableStream<Uint8Array>, sink: (text: string) => void): Promise<void> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    sink(decoder.decode(value, { stream: true }));
  }
}
