// Helpers of the router conformance suite: routers built from (method, path) pairs whose handler
// is "METHOD path", and lookups made twice so the second answer comes from the cache when on.
import { expect } from "../helpers/test_api.ts";
import { Router, type FindResult, type Method } from "../../src/fw/router/index.ts";

export type Found = { handler: string; params: Record<string, string>; route: string };

export function suite(path_cache_size: number) {
  function router(routes: [Method, string][] = []): Router<string> {
    const r = new Router<string>({ path_cache_size });
    for (const [method, path] of routes) r.add(method, path, `${method} ${path}`);
    return r;
  }
  function find(r: Router<string>, method: string, path: string): FindResult<string> {
    const first = r.find(method, path);
    expect(r.find(method, path)).toEqual(first);
    return first;
  }
  function found(r: Router<string>, method: string, path: string): Found {
    const result = find(r, method, path);
    if (result.kind !== "found") throw new Error(`${method} ${path}: expected found, got ${JSON.stringify(result)}`);
    return { handler: result.handler, params: { ...result.params }, route: result.route };
  }
  return { router, find, found };
}
