/**
 * The framework's router.
 *
 * Syntax: static segments; `:name` (one non-empty segment); `:name(regex)`, where the regex must
 * match the whole raw (still percent-encoded) segment; `*` or `*name` as the last segment,
 * capturing the rest of the path (possibly empty: `/static/*` matches `/static/` with "") under
 * "*" or `name`. Precedence is static > parameter > wildcard whatever the registration order,
 * with backtracking; constrained parameters at one position are tried in registration order
 * before the unconstrained one. Precedence holds per method: `DELETE /users/me` matches
 * `DELETE /users/:id` even when `GET /users/me` exists.
 *
 * Trailing slash is strict: `/a/` and `/a` are different paths. Static matching is done on the
 * raw path; captured values are percent-decoded exactly once (malformed → bad_request).
 *
 * HEAD is answered by the GET route of the same pattern unless a HEAD route is registered for it.
 *
 * Results are read-only: static and cached results are frozen and shared between calls. The path
 * cache remembers found and method_not_allowed results only, never a miss.
 */
import { PathCache } from "./cache.ts";
import { is_static, param_positions, parse_pattern, shape_of } from "./pattern.ts";
import { insert, Node, Route, walk, walk_saw_escape, walk_saw_route } from "./radix.ts";
import { Slots } from "./slots.ts";
import { ANY_METHOD, METHODS, RouterError, type FindResult, type Method, type Params } from "./types.ts";

export { METHODS, RouterError } from "./types.ts";
export type { FindResult, Method, Params, RouteMatch } from "./types.ts";

type Found<T> = Extract<FindResult<T>, { kind: "found" }>;

const METHOD_INDEX: Record<string, number> = Object.create(null);
for (const [index, method] of METHODS.entries()) METHOD_INDEX[method] = index;

const NOT_FOUND: FindResult<never> = Object.freeze({ kind: "not_found" });
const EMPTY_PARAMS: Params = Object.freeze(Object.create(null));

/** Maps (method, path) to a handler of type T; see the top of this file for the rules. */
export class Router<T> {
  /** Exact paths of static routes, answered without touching the tree. */
  private readonly statics: Record<string, Slots<Found<T>>> = Object.create(null);
  private readonly tree = new Node<T>("");
  private dynamic = false;
  private readonly registered: { method: Method; path: string }[] = [];
  /** Route pattern by method and shape, to refuse duplicates. */
  private readonly shapes = new Map<string, string>();
  /** Parameter name by method and position: one name per position, so params read predictably. */
  private readonly param_names = new Map<string, string>();
  private readonly cache: PathCache<FindResult<T>> | null;
  /** Capture bounds for the lookup in progress; find is synchronous, so one buffer serves all. */
  private caps = new Int32Array(8);

  /** `path_cache_size`: how many dynamic lookups to remember (default 1024; 0 disables the cache). */
  constructor(options: { path_cache_size?: number } = {}) {
    const size = options.path_cache_size ?? 1024;
    if (!Number.isInteger(size) || size < 0) throw new RouterError(`path_cache_size must be a non-negative integer, got ${size}`);
    this.cache = size === 0 ? null : new PathCache<FindResult<T>>(size, METHODS.length);
  }

  /** Entries in the path cache now (always at most `path_cache_size`). */
  get cache_size(): number {
    return this.cache === null ? 0 : this.cache.size;
  }

  /** Registers a route; throws RouterError for a bad pattern, an unsafe regex, a duplicate or a name conflict. */
  add(method: Method, path: string, handler: T): void {
    const index = METHOD_INDEX[method];
    if (index === undefined) throw new RouterError(`unknown method ${JSON.stringify(method)}`);
    if (typeof path !== "string") throw new RouterError(`route path must be a string`);
    const tokens = parse_pattern(path);
    const shape = `${method} ${shape_of(tokens)}`;
    const same = this.shapes.get(shape);
    if (same !== undefined) throw new RouterError(`duplicate route ${method} ${path} (same as ${method} ${same})`);
    const positions = param_positions(tokens).map(({ at, name }) => ({ at: `${method} ${at}`, name }));
    for (const { at, name } of positions) {
      const known = this.param_names.get(at);
      if (known !== undefined && known !== name) {
        throw new RouterError(`conflicting parameter names at one position: :${name} in ${method} ${path} vs :${known}`);
      }
    }
    if (is_static(tokens)) {
      const found: Found<T> = Object.freeze({ kind: "found", handler, params: EMPTY_PARAMS, route: path });
      (this.statics[path] ??= new Slots()).put(index, found);
    } else {
      const names = tokens.flatMap((t) => (t.kind === "static" ? [] : [t.name]));
      insert(this.tree, tokens, index, new Route(handler, path, names));
      this.dynamic = true;
      if (this.caps.length < names.length * 2) this.caps = new Int32Array(names.length * 2);
    }
    for (const { at, name } of positions) this.param_names.set(at, name);
    this.shapes.set(shape, path);
    this.registered.push({ method, path });
    this.cache?.clear();
  }

  /** Finds the route for `method` and `path` (the path without its query string). */
  find(method: string, path: string): FindResult<T> {
    const index = method === "GET" ? 0 : METHOD_INDEX[method];
    if (index === undefined) return this.not_matched(path);
    const entry = this.statics[path];
    if (entry !== undefined) {
      const found = entry.by_method[index];
      if (found !== undefined) return found;
    }
    const cache = this.cache;
    if (cache === null) return this.resolve(index, path, entry);
    const hit = cache.get(index, path);
    if (hit !== undefined) return hit;
    const result = this.resolve(index, path, entry);
    // Misses (not_found, bad_request) are not remembered: a scan of random paths would evict
    // the routes actually in use.
    if (result.kind === "found") Object.freeze(result.params);
    else if (result.kind === "method_not_allowed") Object.freeze(result.allowed);
    else return result;
    cache.set(index, path, Object.freeze(result));
    return result;
  }

  /** Every registered route in registration order (HEAD routes implied by GET are not listed). */
  routes(): { method: Method; path: string }[] {
    return this.registered.map((r) => ({ method: r.method, path: r.path }));
  }

  /** The lookup behind the static table and the cache. */
  private resolve(index: number, path: string, entry: Slots<Found<T>> | undefined): FindResult<T> {
    if (this.dynamic) {
      const route = walk(this.tree, path, index, this.caps);
      if (route !== null) return this.build(route, path);
      if (entry === undefined && !walk_saw_route()) return NOT_FOUND;
    } else if (entry === undefined) {
      return NOT_FOUND;
    }
    return this.not_matched(path);
  }

  private build(route: Route<T>, path: string): FindResult<T> {
    const names = route.names;
    const caps = this.caps;
    const params: Params = Object.create(null);
    if (!walk_saw_escape()) {
      if (names.length === 1) params[names[0]!] = path.slice(caps[0], caps[1]);
      else for (let i = 0; i < names.length; i++) params[names[i]!] = path.slice(caps[2 * i], caps[2 * i + 1]);
    } else {
      for (let i = 0; i < names.length; i++) {
        const value = decode(path.slice(caps[2 * i], caps[2 * i + 1]));
        if (value === null) return { kind: "bad_request", message: `malformed percent-encoding in parameter ${names[i]}` };
        params[names[i]!] = value;
      }
    }
    return { kind: "found", handler: route.handler, params, route: route.route };
  }

  /** 405 when the path exists under other methods, else 404. Never an empty Allow list. */
  private not_matched(path: string): FindResult<T> {
    const entry = this.statics[path];
    if (entry === undefined && (!this.dynamic || (walk(this.tree, path, ANY_METHOD, this.caps) === null && !walk_saw_route()))) return NOT_FOUND;
    const allowed: Method[] = [];
    for (let index = 0; index < METHODS.length; index++) {
      const exists = entry?.by_method[index] !== undefined || (this.dynamic && walk(this.tree, path, index, this.caps) !== null);
      if (exists) allowed.push(METHODS[index]!);
    }
    return allowed.length === 0 ? NOT_FOUND : { kind: "method_not_allowed", allowed: allowed.sort() };
  }
}

function decode(value: string): string | null {
  if (value.indexOf("%") === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
