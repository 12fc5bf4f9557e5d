import { Fw, type Item, type Running } from "../../src/fw/index.ts";

export type Served = Running & { logs: Record<string, unknown>[]; get(path: string, init?: RequestInit): Promise<Response> };

/** Starts an app on a free loopback port with its log captured. */
export function serve(items: Item[], config: Parameters<typeof Fw.start>[0] = {}): Served {
  const logs: Record<string, unknown>[] = [];
  const running = Fw.start({ port: 0, log: (line) => logs.push(line), ...config }, items);
  return Object.assign(running, {
    logs,
    get: (path: string, init?: RequestInit) => fetch(running.url + path, init),
  });
}
