// The router conformance suite: every behaviour, run with the path cache off and on (each lookup
// made twice, so the second answer comes from the cache).
import { describe, expect, test } from "bun:test";
import { Router, RouterError, type FindResult, type Method } from "../../src/fw/router/index.ts";

for (const path_cache_size of [0, 1024]) {
  describe(`router (path_cache_size ${path_cache_size})`, () => {
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
    function found(r: Router<string>, method: string, path: string): { handler: string; params: Record<string, string>; route: string } {
      const result = find(r, method, path);
      if (result.kind !== "found") throw new Error(`${method} ${path}: expected found, got ${JSON.stringify(result)}`);
      return { handler: result.handler, params: { ...result.params }, route: result.route };
    }

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

      test("a parameter named __proto__ works and params objects are null-prototype", () => {
        const r = router([["GET", "/a/:__proto__"], ["GET", "/b"]]);
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
        const r = router([["GET", "/a"], ["GET", "/b/"], ["GET", "/c/:id"]]);
        expect(find(r, "GET", "/a/").kind).toBe("not_found");
        expect(find(r, "GET", "/b").kind).toBe("not_found");
        expect(find(r, "GET", "/c/1/").kind).toBe("not_found");
        expect(found(r, "GET", "/b/").route).toBe("/b/");
      });

      test("empty segments never produce empty parameters", () => {
        const r = router([["GET", "/a/:p/b"], ["GET", "/x/:p"]]);
        expect(find(r, "GET", "/a//b").kind).toBe("not_found");
        expect(find(r, "GET", "/x/").kind).toBe("not_found");
        expect(find(r, "GET", "//").kind).toBe("not_found");
      });

      test("static text beyond ASCII is matched like any other", () => {
        const r = router([["GET", "/café/:x"], ["GET", "/cafe/:x"], ["GET", "/日本/:x"], ["GET", "/日曜/:x"]]);
        expect(found(r, "GET", "/café/1").route).toBe("/café/:x");
        expect(found(r, "GET", "/cafe/1").route).toBe("/cafe/:x");
        expect(found(r, "GET", "/日曜/1").route).toBe("/日曜/:x");
        expect(find(r, "GET", "/日/1").kind).toBe("not_found");
      });

      test("a route with a literal empty segment matches literally", () => {
        const r = router([["GET", "/a//b"], ["GET", "/c//:id"]]);
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
        ["static first", [["GET", "/static"], ["GET", "/static/*"], ["GET", "/:p"]]],
        ["static last", [["GET", "/:p"], ["GET", "/static/*"], ["GET", "/static"]]],
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
        const routes: [Method, string][] = [["GET", "/u/me"], ["GET", "/u/:id"], ["GET", "/u/*"]];
        for (const order of [routes, [...routes].reverse()]) {
          const r = router(order);
          expect(found(r, "GET", "/u/me").route).toBe("/u/me");
          expect(found(r, "GET", "/u/1").route).toBe("/u/:id");
          expect(found(r, "GET", "/u/1/2").route).toBe("/u/*");
        }
      });

      test("backtracks from a static branch that fails deeper to the parameter", () => {
        const r = router([["GET", "/users/me/settings"], ["GET", "/users/:id/posts"]]);
        expect(found(r, "GET", "/users/me/posts")).toMatchObject({ route: "/users/:id/posts", params: { id: "me" } });
      });

      test("backtracks from a parameter branch that fails deeper to the wildcard", () => {
        const r = router([["GET", "/a/:x/b"], ["GET", "/a/*"]]);
        expect(found(r, "GET", "/a/1/c")).toMatchObject({ route: "/a/*", params: { "*": "1/c" } });
      });

      test("backtracking through static, parameter then wildcard at several levels", () => {
        const r = router([["GET", "/a/b/c/d"], ["GET", "/a/:x/c/e"], ["GET", "/a/b/:y/f"], ["GET", "/a/*"]]);
        expect(found(r, "GET", "/a/b/c/e")).toMatchObject({ route: "/a/:x/c/e", params: { x: "b" } });
        expect(found(r, "GET", "/a/b/c/f")).toMatchObject({ route: "/a/b/:y/f", params: { y: "c" } });
        expect(found(r, "GET", "/a/b/c/g")).toMatchObject({ route: "/a/*", params: { "*": "b/c/g" } });
      });

      test("precedence holds per method", () => {
        const r = router([["GET", "/users/me"], ["DELETE", "/users/:id"]]);
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
        const r = router([["GET", "/n/:id(\\d+)"], ["GET", "/e/:v([a-z%0-9A-F]+)"]]);
        expect(find(r, "GET", "/n/%31").kind).toBe("not_found");
        expect(found(r, "GET", "/e/a%20b").params).toEqual({ v: "a b" });
      });

      test("a failing constraint falls through to the unconstrained sibling", () => {
        for (const order of [["/u/:id(\\d+)", "/u/:id"], ["/u/:id", "/u/:id(\\d+)"]]) {
          const r = router(order.map((p) => ["GET", p] as [Method, string]));
          expect(found(r, "GET", "/u/12").route).toBe("/u/:id(\\d+)");
          expect(found(r, "GET", "/u/ab").route).toBe("/u/:id");
        }
      });

      test("a failing constraint falls through to the wildcard", () => {
        const r = router([["GET", "/u/:id(\\d+)"], ["GET", "/u/*"]]);
        expect(found(r, "GET", "/u/12").route).toBe("/u/:id(\\d+)");
        expect(found(r, "GET", "/u/ab").route).toBe("/u/*");
      });

      test("a constraint that matches but fails deeper falls through to the next sibling", () => {
        const r = router([["GET", "/u/:id(\\d+)/a"], ["GET", "/u/:id/b"]]);
        expect(found(r, "GET", "/u/12/b")).toMatchObject({ route: "/u/:id/b", params: { id: "12" } });
      });

      test("several constraints with one name at one position are tried in registration order", () => {
        const r = router([["GET", "/v/:x([a-m]+)"], ["GET", "/v/:x([a-z]+)"], ["GET", "/v/:x(\\d+)"]]);
        expect(found(r, "GET", "/v/abc").route).toBe("/v/:x([a-m]+)");
        expect(found(r, "GET", "/v/xyz").route).toBe("/v/:x([a-z]+)");
        expect(found(r, "GET", "/v/42").route).toBe("/v/:x(\\d+)");
        expect(find(r, "GET", "/v/-").kind).toBe("not_found");
      });

      test("a segment longer than 256 characters never satisfies a constraint", () => {
        const r = router([["GET", "/h/:v([a-z]+)"], ["GET", "/h/*"]]);
        expect(found(r, "GET", `/h/${"a".repeat(256)}`).route).toBe("/h/:v([a-z]+)");
        expect(found(r, "GET", `/h/${"a".repeat(257)}`).route).toBe("/h/*");
      });

      test("a constraint may contain a slash-free group with parentheses and brackets", () => {
        const r = router([["GET", "/d/:day((?:mon|tue)[)(]?)/x"]]);
        expect(found(r, "GET", "/d/mon(/x").params).toEqual({ day: "mon(" });
      });
    });

    describe("methods", () => {
      test("HEAD is answered by the GET route when no HEAD route exists", () => {
        const r = router([["GET", "/s"], ["GET", "/d/:id"]]);
        expect(found(r, "HEAD", "/s").handler).toBe("GET /s");
        expect(found(r, "HEAD", "/d/1")).toMatchObject({ handler: "GET /d/:id", params: { id: "1" } });
      });

      test("an explicit HEAD route wins over GET for its pattern", () => {
        const r = router([["GET", "/s"], ["HEAD", "/s"], ["HEAD", "/d/:id"], ["GET", "/d/:id"]]);
        expect(found(r, "HEAD", "/s").handler).toBe("HEAD /s");
        expect(found(r, "HEAD", "/d/1").handler).toBe("HEAD /d/:id");
        expect(found(r, "GET", "/d/1").handler).toBe("GET /d/:id");
      });

      test("HEAD follows precedence across GET and HEAD routes", () => {
        const r = router([["GET", "/a/b"], ["HEAD", "/a/:x"], ["GET", "/a/:x"]]);
        expect(found(r, "HEAD", "/a/b").handler).toBe("GET /a/b");
        expect(found(r, "HEAD", "/a/c").handler).toBe("HEAD /a/:x");
      });

      test("405 lists the path's methods sorted, with HEAD when GET exists", () => {
        const r = router([["POST", "/s"], ["GET", "/s"], ["DELETE", "/s"], ["PUT", "/d/:id"], ["GET", "/d/:id"]]);
        expect(find(r, "PATCH", "/s")).toEqual({ kind: "method_not_allowed", allowed: ["DELETE", "GET", "HEAD", "POST"] });
        expect(find(r, "POST", "/d/1")).toEqual({ kind: "method_not_allowed", allowed: ["GET", "HEAD", "PUT"] });
      });

      test("405 lists OPTIONS only if registered", () => {
        const r = router([["POST", "/a"], ["POST", "/b"], ["OPTIONS", "/b"]]);
        expect(find(r, "OPTIONS", "/a")).toEqual({ kind: "method_not_allowed", allowed: ["POST"] });
        expect(find(r, "GET", "/b")).toEqual({ kind: "method_not_allowed", allowed: ["OPTIONS", "POST"] });
      });

      test("405 counts static and dynamic routes of other methods together", () => {
        const r = router([["GET", "/u/me"], ["DELETE", "/u/:id"], ["PUT", "/u/*"]]);
        expect(find(r, "POST", "/u/me")).toEqual({ kind: "method_not_allowed", allowed: ["DELETE", "GET", "HEAD", "PUT"] });
        expect(find(r, "POST", "/u/x/y")).toEqual({ kind: "method_not_allowed", allowed: ["PUT"] });
      });

      test("a method no route uses is 405 on an existing path and 404 elsewhere", () => {
        const r = router([["GET", "/a"], ["GET", "/b/:id"]]);
        for (const method of ["FOO", "TRACE", "get", "__proto__", "constructor"]) {
          expect(find(r, method, "/a")).toEqual({ kind: "method_not_allowed", allowed: ["GET", "HEAD"] });
          expect(find(r, method, "/b/1")).toEqual({ kind: "method_not_allowed", allowed: ["GET", "HEAD"] });
          expect(find(r, method, "/c")).toEqual({ kind: "not_found" });
        }
      });

      test("an empty router answers not_found for every method", () => {
        for (const method of ["GET", "HEAD", "FOO"]) expect(find(router(), method, "/")).toEqual({ kind: "not_found" });
      });
    });

    describe("percent-encoding", () => {
      test("parameters are decoded exactly once", () => {
        const r = router([["GET", "/f/:name"]]);
        expect(found(r, "GET", "/f/a%2Fb").params).toEqual({ name: "a/b" });
        expect(found(r, "GET", "/f/a%252Fb").params).toEqual({ name: "a%2Fb" });
        expect(found(r, "GET", "/f/caf%C3%A9").params).toEqual({ name: "café" });
        expect(found(r, "GET", "/f/a+b").params).toEqual({ name: "a+b" });
      });

      test("malformed percent-encoding in a parameter is bad_request", () => {
        const r = router([["GET", "/f/:name"], ["GET", "/w/*"]]);
        for (const path of ["/f/%E0%A4%A", "/f/%zz", "/f/%", "/f/%ED%A0%80", "/w/a/%G1"]) {
          const result = find(r, "GET", path);
          expect(result.kind).toBe("bad_request");
          expect(result.kind === "bad_request" && result.message).toContain("percent-encoding");
        }
      });

      test("static matching is done on the raw path", () => {
        const r = router([["GET", "/a%20b"], ["GET", "/x/a%2Fb/y"]]);
        expect(found(r, "GET", "/a%20b").route).toBe("/a%20b");
        expect(find(r, "GET", "/a b").kind).toBe("not_found");
        expect(find(r, "GET", "/x/a/b/y").kind).toBe("not_found");
      });

      test("a malformed escape outside any parameter does not matter", () => {
        const r = router([["GET", "/%zz/:id"]]);
        expect(found(r, "GET", "/%zz/1").params).toEqual({ id: "1" });
      });
    });

    describe("registration", () => {
      test("routes() lists every route in registration order, without implied HEAD routes", () => {
        const r = router([["GET", "/b"], ["POST", "/a/:id"], ["GET", "/c/*"], ["HEAD", "/b"]]);
        expect(r.routes()).toEqual([
          { method: "GET", path: "/b" },
          { method: "POST", path: "/a/:id" },
          { method: "GET", path: "/c/*" },
          { method: "HEAD", path: "/b" },
        ]);
      });

      test("a duplicate route throws RouterError", () => {
        const pairs = [
          ["/a", "/a"],
          ["/a/:id", "/a/:id"],
          ["/a/:id", "/a/:other"],
          ["/a/:id(\\d+)", "/a/:n(\\d+)"],
          ["/a/*", "/a/*"],
          ["/a/*", "/a/*rest"],
        ];
        for (const [first, second] of pairs) {
          const r = router([["GET", first!]]);
          expect(() => r.add("GET", second!, "x")).toThrow(RouterError);
          expect(() => r.add("GET", second!, "x")).toThrow(/duplicate route/);
          r.add("POST", second!, "x");
        }
      });

      test("conflicting parameter names at one position throw RouterError", () => {
        const r = router([["GET", "/users/:id"]]);
        expect(() => r.add("GET", "/users/:name/posts", "x")).toThrow(/conflicting parameter names/);
        expect(() => r.add("GET", "/users/:uid(\\d+)", "x")).toThrow(/conflicting parameter names/);
        r.add("GET", "/users/:id/posts", "x");
        r.add("GET", "/users/:id(\\d+)", "x");
      });

      test("a refused route leaves the router as it was", () => {
        const r = router([["GET", "/a/:x"], ["GET", "/a/:x/b"]]);
        for (const bad of ["/a/:y/c", "/a/:x/b", "/a/:x/:v(", "/a/:x/:v((a+)+)"]) expect(() => r.add("GET", bad, "x")).toThrow(RouterError);
        expect(r.routes()).toEqual([{ method: "GET", path: "/a/:x" }, { method: "GET", path: "/a/:x/b" }]);
        expect(find(r, "GET", "/a/1/c").kind).toBe("not_found");
        r.add("GET", "/a/:x/c", "ok");
        expect(found(r, "GET", "/a/1/c").params).toEqual({ x: "1" });
      });

      test("different parameter names at one position are allowed under different methods", () => {
        const r = router([["GET", "/users/:id"], ["DELETE", "/users/:user_id"]]);
        expect(found(r, "DELETE", "/users/1").params).toEqual({ user_id: "1" });
        expect(found(r, "GET", "/users/1").params).toEqual({ id: "1" });
        expect(found(r, "HEAD", "/users/1").params).toEqual({ id: "1" });
      });

      test("a bad pattern throws RouterError", () => {
        const bad = ["", "users", "/a/:", "/a/*/b", "/a/b*c/*x/y", "/a/:id-x", "/a/:id(\\d+", "/a/:id()", "/a?x=1", "/a#x", "/a/:x/:x", "/a/:x([)"];
        for (const path of bad) expect(() => router().add("GET", path, "x")).toThrow(RouterError);
      });

      test("an unknown method cannot be registered", () => {
        expect(() => router().add("TRACE" as Method, "/a", "x")).toThrow(RouterError);
      });

      test("colons and stars inside a segment are literal", () => {
        const r = router([["POST", "/v1/models/:model/x:generate"], ["GET", "/a*b"]]);
        expect(found(r, "POST", "/v1/models/m/x:generate").params).toEqual({ model: "m" });
        expect(found(r, "GET", "/a*b").route).toBe("/a*b");
      });
    });
  });
}

describe("unsafe regular expressions", () => {
  test("nested quantifiers, backreferences and lookarounds are rejected at registration", () => {
    // The check is static and conservative: any repeated group holding an unbounded repetition goes.
    const unsafe = ["(\\.\\d+)*", "(a+)+", "(a*)*", "(a+)*", "(?:a|b+)+", "((ab)*c)+", "(a{1,})+", "(a+){2,}", "(a)\\1", "(?<n>a)\\k<n>", "(?=a)a", "(?!a)b", "(?<=a)b", "(?<!a)b"];
    for (const source of unsafe) {
      expect(() => new Router<string>().add("GET", `/x/:v(${source})`, "x")).toThrow(/unsafe regex/);
    }
  });

  test("ordinary constraints are accepted", () => {
    const safe = ["\\d+", "[a-z]{2,8}", "(foo|bar)+", "(?:ab)+", "[a-f0-9]{40}", "(a+)?", "\\w+-\\w+", "[(+)]+", "v[\\d.]+"];
    for (const source of safe) new Router<string>().add("GET", `/x/:v(${source})`, "x");
  });

  test("a constraint that is not a valid regex throws RouterError", () => {
    expect(() => new Router<string>().add("GET", "/x/:v([a-)", "x")).toThrow(RouterError);
  });
});

test("the router generates no code at run time", async () => {
  const glob = new Bun.Glob("*.ts");
  for await (const file of glob.scan({ cwd: new URL("../../src/fw/router/", import.meta.url).pathname, absolute: true })) {
    const text = await Bun.file(file).text();
    expect(text).not.toMatch(/new Function|\beval\(/);
  }
});
