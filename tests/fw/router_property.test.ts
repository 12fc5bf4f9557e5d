// Properties that hold for any path: find never throws, never answers a found route with an
// undefined parameter, never a 405 without methods; every registered static path is found.
import { expect, test } from "../helpers/test_api.ts";
import fc from "fast-check";
import { METHODS, Router, RouterError, type FindResult, type Method } from "../../src/fw/router/index.ts";

const ROUTES: [Method, string][] = [
  ["GET", "/repos/:owner/:repo"],
  ["GET", "/repos/:owner/:repo/git/refs/*ref"],
  ["GET", "/repos/:owner/:repo/git/refs"],
  ["GET", "/repos/:owner/:repo/issues/:number/comments"],
  ["GET", "/repos/:owner/:repo/issues/comments/:id"],
  ["GET", "/repos/:owner/:repo/:archive_format/:ref"],
  ["GET", "/users/:user"],
  ["GET", "/user"],
  ["PATCH", "/user"],
  ["GET", "/gists/public"],
  ["GET", "/gists/:id"],
  ["PUT", "/gists/:id/star"],
  ["GET", "/static/*"],
  ["GET", "/n/:id(\\d+)"],
  ["GET", "/n/:id"],
  ["POST", "/a//b"],
  ["OPTIONS", "/users/:user"],
];

const path_char = fc.constantFrom(..."/abcrepos%2FE0A:*-_.~ 0123456789é\u{1F600}?#".split(""), "/", "/", "%", "%2F", "%E0%A4%A", "%ED%A0%80");
const path = fc.array(path_char, { maxLength: 40 }).map((parts) => parts.join(""));
const github_path = fc
  .tuple(fc.constantFrom(...ROUTES.map(([, p]) => p)), fc.array(fc.constantFrom("x", "42", "a%20b", "", "%zz", "a/b"), { minLength: 8, maxLength: 8 }))
  .map(([pattern, values]) => {
    let i = 0;
    return pattern.replace(/:\w+(\([^)]*\))?|\*\w*/g, () => values[i++ % values.length]!);
  });
const method = fc.constantFrom<string>(...METHODS, "FOO", "get", "");

function check(result: FindResult<string>): void {
  if (result.kind === "found") {
    for (const [name, value] of Object.entries(result.params)) {
      expect(typeof name).toBe("string");
      expect(typeof value).toBe("string");
    }
    expect(Object.getPrototypeOf(result.params)).toBeNull();
  }
  if (result.kind === "method_not_allowed") expect(result.allowed.length).toBeGreaterThan(0);
}

for (const path_cache_size of [0, 8]) {
  const router = new Router<string>({ path_cache_size });
  for (const [m, p] of ROUTES) router.add(m, p, `${m} ${p}`);

  test(`random paths never throw nor yield undefined parameters (cache ${path_cache_size})`, () => {
    fc.assert(
      fc.property(method, fc.oneof(path, github_path), (m, p) => check(router.find(m, p))),
      { numRuns: 3000 },
    );
  });
}

test("any registered static path is found, whatever else is registered", () => {
  const segment = fc.constantFrom("a", "b", "users", ":id", ":name", "*", "*rest", ":n(\\d+)", "", "x:y");
  const route = fc.tuple(fc.constantFrom<Method>(...METHODS), fc.array(segment, { minLength: 1, maxLength: 4 }));
  fc.assert(
    fc.property(fc.array(route, { maxLength: 30 }), fc.boolean(), (routes, cached) => {
      const router = new Router<string>({ path_cache_size: cached ? 4 : 0 });
      const statics: [Method, string][] = [];
      for (const [m, segments] of routes) {
        const p = `/${segments.join("/")}`;
        try {
          router.add(m, p, `${m} ${p}`);
        } catch (error) {
          expect(error).toBeInstanceOf(RouterError);
          continue;
        }
        if (!/(^|\/)[:*]/.test(p)) statics.push([m, p]);
      }
      for (const [m, p] of statics) {
        expect(router.find(m, p)).toMatchObject({ kind: "found", handler: `${m} ${p}`, route: p });
      }
      for (const [, p] of statics) for (const m of [...METHODS, "FOO"]) check(router.find(m, p));
    }),
    { numRuns: 500 },
  );
});
