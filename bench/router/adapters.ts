// Each peer behind one shape: build the router from ROUTES, return its lookup function.
import FindMyWay from "find-my-way";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { TrieRouter } from "hono/router/trie-router";
import { Memoirist } from "memoirist";
import { addRoute, createRouter, findRoute } from "rou3";
import { compileRouter } from "rou3/compiler";
import { Router, type Method } from "../../src/fw/router/index.ts";
import { convert, type RouteSpec } from "./routes.ts";

export type Lookup = (method: string, path: string) => unknown;
export type Adapter = {
  name: string;
  /** True when the router generates JavaScript at run time (new Function / eval). */
  codegen: boolean;
  build: (routes: RouteSpec[]) => Lookup;
  /** Whether a lookup's result means "a route matched". */
  hit: (result: unknown) => boolean;
};

const some = (r: unknown) => r !== null && r !== undefined;

const handler = () => "ok";

export function ours(path_cache_size: number): Adapter["build"] {
  return (routes) => {
    const router = new Router<typeof handler>({ path_cache_size });
    for (const r of routes) router.add(r.method as Method, r.path, handler);
    return (method, path) => router.find(method, path);
  };
}
const ours_hit = (r: unknown) => (r as { kind: string }).kind === "found";
const hono_hit = (r: unknown) => (r as unknown[][])[0]!.length > 0;

export const ADAPTERS: Adapter[] = [
  { name: "ours (cache cold)", codegen: false, build: ours(0), hit: ours_hit },
  { name: "ours (cache warm)", codegen: false, build: ours(1024), hit: ours_hit },
  {
    name: "find-my-way",
    hit: some,
    codegen: false,
    build: (routes) => {
      const router = FindMyWay();
      for (const r of routes)
        router.on(
          r.method as "GET",
          convert(r.path, () => "*", "*"),
          handler,
        );
      return (method, path) => router.find(method as "GET", path);
    },
  },
  {
    name: "memoirist",
    hit: some,
    codegen: false,
    build: (routes) => {
      const router = new Memoirist<typeof handler>();
      for (const r of routes)
        router.add(
          r.method,
          convert(r.path, () => "*", "*"),
          handler,
        );
      return (method, path) => router.find(method, path);
    },
  },
  {
    name: "hono RegExpRouter",
    codegen: false,
    hit: hono_hit,
    build: (routes) => {
      const router = new RegExpRouter<typeof handler>();
      for (const r of routes) {
        try {
          router.add(
            r.method,
            convert(r.path, (n) => `:${n}{.+}`, "*"),
            handler,
          );
        } catch {
          // UnsupportedPathError: RegExpRouter refuses some ambiguous routes (Hono then falls back to another router); skipped
        }
      }
      router.match("GET", "/"); // builds the matchers, so registration time includes them
      return (method, path) => router.match(method, path);
    },
  },
  {
    name: "hono TrieRouter",
    codegen: false,
    hit: hono_hit,
    build: (routes) => {
      const router = new TrieRouter<typeof handler>();
      for (const r of routes)
        router.add(
          r.method,
          convert(r.path, (n) => `:${n}{.+}`, "*"),
          handler,
        );
      return (method, path) => router.match(method, path);
    },
  },
  {
    name: "rou3",
    hit: some,
    codegen: false,
    build: (routes) => {
      const router = createRouter<typeof handler>();
      for (const r of routes)
        addRoute(
          router,
          r.method,
          convert(r.path, (n) => `**:${n}`, "**"),
          handler,
        );
      return (method, path) => findRoute(router, method, path);
    },
  },
  {
    name: "rou3 compileRouter",
    hit: some,
    codegen: true,
    build: (routes) => {
      const router = createRouter<typeof handler>();
      for (const r of routes)
        addRoute(
          router,
          r.method,
          convert(r.path, (n) => `**:${n}`, "**"),
          handler,
        );
      return compileRouter(router);
    },
  },
];
