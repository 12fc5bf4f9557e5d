// The router conformance suite, part one: matching, wildcards, precedence, constraints. Run with
// the path cache off and on (each lookup made twice, so the second answer comes from the cache).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "../helpers/test_api.ts";
import type { Method } from "../../src/fw/router/index.ts";
import { suite } from "./router_suite.ts";

for (const path_cache_size of [0, 1024]) {
  describe(`router (path_cache_size ${path_cache_size})`, () => {
    const { router, find, found } = suite(path_cache_size);

    describe("matching", () => {
      test("finds a static route and reports the registered pattern", () => {
        expect(found(router([["GET", "/users"]]), "GET", "/users")).toEqual({ handler: "GET /users", params: {}, route: "/users" });
      });

      test("extracts one parameter", () => {
        expect(found(router([["GET", "/users/:id"]]), "GET", "/users/42").params).toEqual({ id: "42" });
      });

      test("extracts several parameters from a deep route", () => {
        const r = router([["GET", "/repos/:owner/:repo/issues/:number/comments"]]);
        expect(found(r, "GET", "/repos/oven/bun/issues/7/comments")).toEqual({
          handler: "GET /repos/:owner/:repo/issues/:number/comments",
          params: { owner: "oven", repo: "bun", number: "7" },
          route: "/repos/:owner/:repo/issues/:number/comments",
        });
      });

      test("parameters span one segment only", () => {
        expect(find(router([["GET", "/users/:id"]]), "GET", "/users/1/2").kind).toBe("not_found");
      });

      test("a missing path is not_found", () => {
        expect(find(router([["GET", "/users/:id"]]), "GET", "/nothing")).toEqual({ kind: "not_found" });
      });

      test("a 10,000-character parameter works", () => {
        const long = "x".repeat(10_000);
        expect(found(router([["GET", "/blobs/:sha/raw"]]), "GET", `/blobs/${long}/raw`).params.sha).toBe(long);
      });

      test("a path of thousands of segments is answered, found or not", () => {
        const r = router([
          ["GET", "/a/:x/b"],
          ["GET", "/a/:x/:y/c"],
          ["GET", "/a/*"],
          ["GET", "/z/:x/:y"],
        ]);
        const deep = `/a/${"s/".repeat(5000)}end`;
        expect(found(r, "GET", deep).route).toBe("/a/*");
        expect(find(r, "GET", `/z/${"/".repeat(5000)}`).kind).toBe("not_found");
        expect(find(r, "GET", "/q".repeat(5000)).kind).toBe("not_found");
      });

      test("a parameter named __proto__ works and params objects are null-prototype", () => {
        const r = router([
          ["GET", "/a/:__proto__"],
          ["GET", "/b"],
        ]);
        const result = find(r, "GET", "/a/x");
        if (result.kind !== "found") throw new Error("not found");
        expect(Object.getPrototypeOf(result.params)).toBeNull();
        expect(Object.keys(result.params)).toEqual(["__proto__"]);
        expect(result.params["__proto__"]).toBe("x");
        const fixed = find(r, "GET", "/b");
        expect(fixed.kind === "found" && Object.getPrototypeOf(fixed.params)).toBeNull();
        expect(({} as Record<string, unknown>).x).toBeUndefined();
      });

      test("trailing slash is strict: /a/ and /a are different paths", () => {
        const r = router([
          ["GET", "/a"],
          ["GET", "/b/"],
          ["GET", "/c/:id"],
        ]);
        expect(find(r, "GET", "/a/").kind).toBe("not_found");
        expect(find(r, "GET", "/b").kind).toBe("not_found");
        expect(find(r, "GET", "/c/1/").kind).toBe("not_found");
        expect(found(r, "GET", "/b/").route).toBe("/b/");
      });

      test("empty segments never produce empty parameters", () => {
        const r = router([
          ["GET", "/a/:p/b"],
          ["GET", "/x/:p"],
        ]);
        expect(find(r, "GET", "/a//b").kind).toBe("not_found");
        expect(find(r, "GET", "/x/").kind).toBe("not_found");
        expect(find(r, "GET", "//").kind).toBe("not_found");
      });

      test("static text beyond ASCII is matched like any other", () => {
        const r = router([
          ["GET", "/café/:x"],
          ["GET", "/cafe/:x"],
          ["GET", "/日本/:x"],
          ["GET", "/日曜/:x"],
        ]);
        expect(found(r, "GET", "/café/1").route).toBe("/café/:x");
        expect(found(r, "GET", "/cafe/1").route).toBe("/cafe/:x");
        expect(found(r, "GET", "/日曜/1").route).toBe("/日曜/:x");
        expect(find(r, "GET", "/日/1").kind).toBe("not_found");
      });

      test("a route with a literal empty segment matches literally", () => {
        const r = router([
          ["GET", "/a//b"],
          ["GET", "/c//:id"],
        ]);
        expect(found(r, "GET", "/a//b").route).toBe("/a//b");
        expect(found(r, "GET", "/c//1").params).toEqual({ id: "1" });
      });
    });

    describe("wildcards", () => {
      test("a wildcard captures the rest of the path under *", () => {
        expect(found(router([["GET", "/static/*"]]), "GET", "/static/a/b.css").params).toEqual({ "*": "a/b.css" });
      });

      test("a wildcard may capture the empty rest, but needs its slash", () => {
        const r = router([["GET", "/static/*"]]);
        expect(found(r, "GET", "/static/").params).toEqual({ "*": "" });
        expect(find(r, "GET", "/static").kind).toBe("not_found");
      });

      test("a named wildcard captures under its name, after the parameters", () => {
        const r = router([["GET", "/files/:owner/*path"]]);
        expect(found(r, "GET", "/files/ann/docs/a.txt").params).toEqual({ owner: "ann", path: "docs/a.txt" });
      });

      test("a wildcard value is percent-decoded once", () => {
        expect(found(router([["GET", "/f/*"]]), "GET", "/f/a%20b/c%252F").params["*"]).toBe("a b/c%2F");
      });
    });

    describe("precedence", () => {
      const orders: [string, [Method, string][]][] = [
        [
          "static first",
          [
            ["GET", "/static"],
            ["GET", "/static/*"],
            ["GET", "/:p"],
          ],
        ],
        [
          "static last",
          [
            ["GET", "/:p"],
            ["GET", "/static/*"],
            ["GET", "/static"],
          ],
        ],
      ];
      for (const [name, routes] of orders) {
        test(`static > parameter > wildcard whatever the registration order (${name})`, () => {
          const r = router(routes);
          expect(found(r, "GET", "/static").route).toBe("/static");
          expect(found(r, "GET", "/other").route).toBe("/:p");
          expect(found(r, "GET", "/static/x").route).toBe("/static/*");
        });
      }

      test("static beats parameter beats wildcard at one position, in both registration orders", () => {
        const routes: [Method, string][] = [
          ["GET", "/u/me"],
          ["GET", "/u/:id"],
          ["GET", "/u/*"],
        ];
        for (const order of [routes, [...routes].reverse()]) {
          const r = router(order);
          expect(found(r, "GET", "/u/me").route).toBe("/u/me");
          expect(found(r, "GET", "/u/1").route).toBe("/u/:id");
          expect(found(r, "GET", "/u/1/2").route).toBe("/u/*");
        }
      });

      test("backtracks from a static branch that fails deeper to the parameter", () => {
        const r = router([
          ["GET", "/users/me/settings"],
          ["GET", "/users/:id/posts"],
        ]);
        expect(found(r, "GET", "/users/me/posts")).toMatchObject({ route: "/users/:id/posts", params: { id: "me" } });
      });

      test("backtracks from a parameter branch that fails deeper to the wildcard", () => {
        const r = router([
          ["GET", "/a/:x/b"],
          ["GET", "/a/*"],
        ]);
        expect(found(r, "GET", "/a/1/c")).toMatchObject({ route: "/a/*", params: { "*": "1/c" } });
      });

      test("backtracking through static, parameter then wildcard at several levels", () => {
        const r = router([
          ["GET", "/a/b/c/d"],
          ["GET", "/a/:x/c/e"],
          ["GET", "/a/b/:y/f"],
          ["GET", "/a/*"],
        ]);
        expect(found(r, "GET", "/a/b/c/e")).toMatchObject({ route: "/a/:x/c/e", params: { x: "b" } });
        expect(found(r, "GET", "/a/b/c/f")).toMatchObject({ route: "/a/b/:y/f", params: { y: "c" } });
        expect(found(r, "GET", "/a/b/c/g")).toMatchObject({ route: "/a/*", params: { "*": "b/c/g" } });
      });

      test("precedence holds per method", () => {
        const r = router([
          ["GET", "/users/me"],
          ["DELETE", "/users/:id"],
        ]);
        expect(found(r, "DELETE", "/users/me")).toMatchObject({ route: "/users/:id", params: { id: "me" } });
        expect(found(r, "GET", "/users/me").route).toBe("/users/me");
      });
    });

    describe("constrained parameters", () => {
      test("a constraint must match the whole segment", () => {
        const r = router([["GET", "/users/:id(\\d+)"]]);
        expect(found(r, "GET", "/users/123").params).toEqual({ id: "123" });
        expect(find(r, "GET", "/users/12a").kind).toBe("not_found");
        expect(find(r, "GET", "/users/a12").kind).toBe("not_found");
      });

      test("a constraint sees the raw segment", () => {
        const r = router([
          ["GET", "/n/:id(\\d+)"],
          ["GET", "/e/:v([a-z%0-9A-F]+)"],
        ]);
        expect(find(r, "GET", "/n/%31").kind).toBe("not_found");
        expect(found(r, "GET", "/e/a%20b").params).toEqual({ v: "a b" });
      });

      test("a failing constraint falls through to the unconstrained sibling", () => {
        for (const order of [
          ["/u/:id(\\d+)", "/u/:id"],
          ["/u/:id", "/u/:id(\\d+)"],
        ]) {
          const r = router(order.map((p) => ["GET", p] as [Method, string]));
          expect(found(r, "GET", "/u/12").route).toBe("/u/:id(\\d+)");
          expect(found(r, "GET", "/u/ab").route).toBe("/u/:id");
        }
      });

      test("a failing constraint falls through to the wildcard", () => {
        const r = router([
          ["GET", "/u/:id(\\d+)"],
          ["GET", "/u/*"],
        ]);
        expect(found(r, "GET", "/u/12").route).toBe("/u/:id(\\d+)");
        expect(found(r, "GET", "/u/ab").route).toBe("/u/*");
      });

      test("a constraint that matches but fails deeper falls through to the next sibling", () => {
        const r = router([
          ["GET", "/u/:id(\\d+)/a"],
          ["GET", "/u/:id/b"],
        ]);
        expect(found(r, "GET", "/u/12/b")).toMatchObject({ route: "/u/:id/b", params: { id: "12" } });
      });

      test("several constraints with one name at one position are tried in registration order", () => {
        const r = router([
          ["GET", "/v/:x([a-m]+)"],
          ["GET", "/v/:x([a-z]+)"],
          ["GET", "/v/:x(\\d+)"],
        ]);
        expect(found(r, "GET", "/v/abc").route).toBe("/v/:x([a-m]+)");
        expect(found(r, "GET", "/v/xyz").route).toBe("/v/:x([a-z]+)");
        expect(found(r, "GET", "/v/42").route).toBe("/v/:x(\\d+)");
        expect(find(r, "GET", "/v/-").kind).toBe("not_found");
      });

      test("a segment longer than 256 characters never satisfies a constraint", () => {
        const r = router([
          ["GET", "/h/:v([a-z]+)"],
          ["GET", "/h/*"],
        ]);
        expect(found(r, "GET", `/h/${"a".repeat(256)}`).route).toBe("/h/:v([a-z]+)");
        expect(found(r, "GET", `/h/${"a".repeat(257)}`).route).toBe("/h/*");
      });

      test("a constraint may contain a slash-free group with parentheses and brackets", () => {
        const r = router([["GET", "/d/:day((?:mon|tue)[)(]?)/x"]]);
        expect(found(r, "GET", "/d/mon(/x").params).toEqual({ day: "mon(" });
      });
    });
  });
}

test("the router generates no code at run time", () => {
  const dir = join(import.meta.dirname, "../../src/fw/router");
  const files = readdirSync(dir).filter((name) => name.endsWith(".ts"));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) expect(readFileSync(join(dir, file), "utf8")).not.toMatch(/new Function|\beval\(/);
});
