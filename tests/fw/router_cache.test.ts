import { describe, expect, test } from "../helpers/test_api.ts";
import { PathCache } from "../../src/fw/router/cache.ts";
import { Router, RouterError } from "../../src/fw/router/index.ts";

function github_like(size: number): Router<string> {
  const r = new Router<string>({ path_cache_size: size });
  r.add("GET", "/users", "list");
  r.add("GET", "/users/:id", "show");
  r.add("DELETE", "/users/:id", "delete");
  return r;
}

describe("path cache", () => {
  test("the cache never holds more than path_cache_size entries (100,000 distinct matching paths)", () => {
    for (const size of [1, 2, 3, 1024]) {
      const r = github_like(size);
      let most = 0;
      // Counted, then one expect: 400,000 calls of the npm `expect` (Deno) take seconds.
      let not_found = 0;
      for (let i = 0; i < 100_000; i++) {
        if (r.find("GET", `/users/${i}`).kind !== "found") not_found += 1;
        if (r.cache_size > most) most = r.cache_size;
      }
      expect(not_found).toBe(0);
      expect(most).toBeLessThanOrEqual(size);
      expect(most).toBeGreaterThan(0);
    }
  });

  test("a scan of missing paths does not evict cached routes (misses are not cached)", () => {
    const r = github_like(2);
    const user = r.find("GET", "/users/7");
    const not_allowed = r.find("POST", "/users/7");
    for (let i = 0; i < 1000; i++) expect(r.find("GET", `/missing/${i}`).kind).toBe("not_found");
    expect(r.cache_size).toBe(2);
    expect(r.find("GET", "/users/7")).toBe(user);
    expect(r.find("POST", "/users/7")).toBe(not_allowed);
  });

  test("path_cache_size 0 disables the cache", () => {
    const r = github_like(0);
    for (let i = 0; i < 100; i++) r.find("GET", `/users/${i}`);
    expect(r.cache_size).toBe(0);
    expect(r.find("GET", "/users/1")).not.toBe(r.find("GET", "/users/1"));
  });

  test("the default cache holds 1024 entries", () => {
    const r = new Router<string>();
    r.add("GET", "/u/:id", "x");
    for (let i = 0; i < 5000; i++) r.find("GET", `/u/${i}`);
    expect(r.cache_size).toBeGreaterThan(0);
    expect(r.cache_size).toBeLessThanOrEqual(1024);
  });

  test("a repeated dynamic lookup is answered from the cache with the same frozen result", () => {
    const r = github_like(16);
    const first = r.find("GET", "/users/7");
    expect(r.cache_size).toBe(1);
    expect(r.find("GET", "/users/7")).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.kind === "found" && Object.isFrozen(first.params)).toBe(true);
  });

  test("static lookups bypass the cache and share one frozen result", () => {
    const r = github_like(16);
    const first = r.find("GET", "/users");
    expect(r.find("GET", "/users")).toBe(first);
    expect(r.cache_size).toBe(0);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      if (first.kind === "found") (first.params as Record<string, string>).x = "y";
    }).toThrow();
  });

  test("the cache is keyed by method and path", () => {
    const r = github_like(16);
    expect(r.find("GET", "/users/1")).toMatchObject({ handler: "show" });
    expect(r.find("DELETE", "/users/1")).toMatchObject({ handler: "delete" });
    expect(r.find("POST", "/users/1")).toEqual({ kind: "method_not_allowed", allowed: ["DELETE", "GET", "HEAD"] });
    expect(r.find("GET", "/users/1")).toMatchObject({ handler: "show" });
    expect(r.cache_size).toBe(3);
  });

  test("adding a route after lookups invalidates the cache", () => {
    const r = github_like(16);
    expect(r.find("GET", "/users/me").kind).toBe("found");
    expect(r.find("GET", "/posts/1").kind).toBe("not_found");
    expect(r.find("PUT", "/users/1").kind).toBe("method_not_allowed");
    r.add("GET", "/users/me", "me");
    r.add("GET", "/posts/:id", "post");
    r.add("PUT", "/users/:id", "put");
    expect(r.find("GET", "/users/me")).toMatchObject({ handler: "me" });
    expect(r.find("GET", "/posts/1")).toMatchObject({ handler: "post" });
    expect(r.find("PUT", "/users/1")).toMatchObject({ handler: "put" });
  });

  test("a bad path_cache_size throws RouterError", () => {
    for (const size of [-1, 1.5, Number.NaN]) expect(() => new Router({ path_cache_size: size })).toThrow(RouterError);
  });
});

describe("PathCache generations", () => {
  test("an entry in steady use survives generation swaps", () => {
    const cache = new PathCache<number>(4, 1);
    cache.set(0, "/hot", 1);
    for (let i = 0; i < 100; i++) {
      if (cache.get(0, "/hot") === undefined) throw new Error(`lost /hot at ${i}`);
      if (cache.get(0, `/cold/${i}`) === undefined) cache.set(0, `/cold/${i}`, i);
      expect(cache.size).toBeLessThanOrEqual(4);
    }
  });

  test("entries not used for two generations are dropped", () => {
    const cache = new PathCache<number>(4, 1);
    cache.set(0, "/old", 1);
    for (let i = 0; i < 4; i++) cache.set(0, `/new/${i}`, i);
    expect(cache.get(0, "/old")).toBeUndefined();
  });

  test("slots keep keys apart", () => {
    const cache = new PathCache<string>(8, 2);
    cache.set(0, "/p", "zero");
    cache.set(1, "/p", "one");
    expect(cache.get(0, "/p")).toBe("zero");
    expect(cache.get(1, "/p")).toBe("one");
  });
});
