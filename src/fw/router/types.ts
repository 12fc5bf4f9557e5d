/** The HTTP methods a route can be registered for. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS" | "HEAD";

/** Every registrable method; a method's index here is its slot in per-method tables. */
export const METHODS: readonly Method[] = Object.freeze(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"] as const);

export const GET_INDEX = 0;
export const HEAD_INDEX = 6;
/** A slot no route fills: walking with it visits every route that matches, under any method. */
export const ANY_METHOD = 7;

/** Route parameters by name: a null-prototype object, so `__proto__` is just a name. */
export type Params = Record<string, string>;

export type RouteMatch<T> = { handler: T; params: Params };

/** What `Router.find` answers. Results may be shared between calls: treat them as read-only. */
export type FindResult<T> =
  | { kind: "found"; handler: T; params: Params; route: string }
  | { kind: "method_not_allowed"; allowed: Method[] }
  | { kind: "not_found" }
  | { kind: "bad_request"; message: string };

/** Thrown by `Router.add` for a route that can never be served as written. */
export class RouterError extends Error {
  override name = "RouterError";
}
