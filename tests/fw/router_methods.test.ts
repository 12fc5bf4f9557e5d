// The router conformance suite, part two: methods, percent-encoding, registration. Run with the
// path cache off and on (each lookup made twice, so the second answer comes from the cache).
import { describe, expect, test } from "../helpers/test_api.ts";
import { Router, RouterError, type Method } from "../../src/fw/router/index.ts";
import { suite } from "./router_suite.ts";

for (const path_cache_size of [0, 1024]) {
  describe(`router (path_cache_size ${path_cache_size})`, () => {
    const { router, find, found } = suite(path_cache_size);

    describe("methods", () => {
      test("HEAD is answered by the GET route when no HEAD route exists", () => {
        const r = router([
          ["GET", "/s"],
          ["GET", "/d/:id"],
        ]);
        expect(found(r, "HEAD", "/s").handler).toBe("GET /s");
        expect(found(r, "HEAD", "/d/1")).toMatchObject({ handler: "GET /d/:id", params: { id: "1" } });
      });

      test("an explicit HEAD route wins over GET for its pattern", () => {
        const r = router([
          ["GET", "/s"],
          ["HEAD", "/s"],
          ["HEAD", "/d/:id"],
          ["GET", "/d/:id"],
        ]);
        expect(found(r, "HEAD", "/s").handler).toBe("HEAD /s");
        expect(found(r, "HEAD", "/d/1").handler).toBe("HEAD /d/:id");
        expect(found(r, "GET", "/d/1").handler).toBe("GET /d/:id");
      });

      test("HEAD follows precedence across GET and HEAD routes", () => {
        const r = router([
          ["GET", "/a/b"],
          ["HEAD", "/a/:x"],
          ["GET", "/a/:x"],
        ]);
        expect(found(r, "HEAD", "/a/b").handler).toBe("GET /a/b");
        expect(found(r, "HEAD", "/a/c").handler).toBe("HEAD /a/:x");
      });

      test("405 lists the path's methods sorted, with HEAD when GET exists", () => {
        const r = router([
          ["POST", "/s"],
          ["GET", "/s"],
          ["DELETE", "/s"],
          ["PUT", "/d/:id"],
          ["GET", "/d/:id"],
        ]);
        expect(find(r, "PATCH", "/s")).toEqual({ kind: "method_not_allowed", allowed: ["DELETE", "GET", "HEAD", "POST"] });
        expect(find(r, "POST", "/d/1")).toEqual({ kind: "method_not_allowed", allowed: ["GET", "HEAD", "PUT"] });
      });

      test("405 lists OPTIONS only if registered", () => {
        const r = router([
          ["POST", "/a"],
          ["POST", "/b"],
          ["OPTIONS", "/b"],
        ]);
        expect(find(r, "OPTIONS", "/a")).toEqual({ kind: "method_not_allowed", allowed: ["POST"] });
        expect(find(r, "GET", "/b")).toEqual({ kind: "method_not_allowed", allowed: ["OPTIONS", "POST"] });
      });

      test("405 counts static and dynamic routes of other methods together", () => {
        const r = router([
          ["GET", "/u/me"],
          ["DELETE", "/u/:id"],
          ["PUT", "/u/*"],
        ]);
        expect(find(r, "POST", "/u/me")).toEqual({ kind: "method_not_allowed", allowed: ["DELETE", "GET", "HEAD", "PUT"] });
        expect(find(r, "POST", "/u/x/y")).toEqual({ kind: "method_not_allowed", allowed: ["PUT"] });
      });

      test("a method no route uses is 405 on an existing path and 404 elsewhere", () => {
        const r = router([
          ["GET", "/a"],
          ["GET", "/b/:id"],
        ]);
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
        const r = router([
          ["GET", "/f/:name"],
          ["GET", "/w/*"],
        ]);
        for (const path of ["/f/%E0%A4%A", "/f/%zz", "/f/%", "/f/%ED%A0%80", "/w/a/%G1"]) {
          const result = find(r, "GET", path);
          expect(result.kind).toBe("bad_request");
          expect(result.kind === "bad_request" && result.message).toContain("percent-encoding");
        }
      });

      test("static matching is done on the raw path", () => {
        const r = router([
          ["GET", "/a%20b"],
          ["GET", "/x/a%2Fb/y"],
        ]);
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
        const r = router([
          ["GET", "/b"],
          ["POST", "/a/:id"],
          ["GET", "/c/*"],
          ["HEAD", "/b"],
        ]);
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
        const r = router([
          ["GET", "/a/:x"],
          ["GET", "/a/:x/b"],
        ]);
        for (const bad of ["/a/:y/c", "/a/:x/b", "/a/:x/:v(", "/a/:x/:v((a+)+)"]) expect(() => r.add("GET", bad, "x")).toThrow(RouterError);
        expect(r.routes()).toEqual([
          { method: "GET", path: "/a/:x" },
          { method: "GET", path: "/a/:x/b" },
        ]);
        expect(find(r, "GET", "/a/1/c").kind).toBe("not_found");
        r.add("GET", "/a/:x/c", "ok");
        expect(found(r, "GET", "/a/1/c").params).toEqual({ x: "1" });
      });

      test("different parameter names at one position are allowed under different methods", () => {
        const r = router([
          ["GET", "/users/:id"],
          ["DELETE", "/users/:user_id"],
        ]);
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
        const r = router([
          ["POST", "/v1/models/:model/x:generate"],
          ["GET", "/a*b"],
        ]);
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
