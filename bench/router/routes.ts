// The route set every router is measured on: the GitHub API (203 routes, httprouter syntax,
// where `*name` is a catch-all) plus a few wildcard routes of our own.
import { GITHUB_ROUTES } from "./github_routes.ts";

export type RouteSpec = { method: string; path: string };

export const ROUTES: RouteSpec[] = [
  ...GITHUB_ROUTES.map(([method, path]) => ({ method, path })),
  { method: "GET", path: "/static/*" },
  { method: "GET", path: "/files/:owner/*" },
  { method: "PUT", path: "/files/:owner/*" },
];

/** One request per case; every router must answer the first four with a route, the last with none. */
export const CASES = [
  { name: "static", method: "GET", path: "/user/repos" },
  { name: "one param", method: "GET", path: "/users/julienschmidt" },
  { name: "deep, 3 params", method: "GET", path: "/repos/julienschmidt/httprouter/issues/42/comments" },
  { name: "wildcard", method: "GET", path: "/static/assets/css/site/main.css" },
  { name: "miss", method: "GET", path: "/this/route/does/not/exist" },
] as const;

/** `*name` (httprouter) → a router's catch-all syntax; `named` gets the name, `bare` does not. */
export function convert(path: string, named: (name: string) => string, bare: string): string {
  return path.replace(/\*(\w*)$/, (_, name: string) => (name === "" ? bare : named(name)));
}
