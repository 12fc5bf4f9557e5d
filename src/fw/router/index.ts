/**
 * The framework's router.
 *
 * Syntax: static segments; `:name` (one non-empty segment); `:name(regex)`, where the regex must
 * match the whole raw (still percent-encoded) segment; `*` or `*name` as the last segment,
 * capturing the rest of the path (possibly empty: `/static/*` matches `/static/` with "") under
 * "*" or `name`. Precedence is static > parameter > wildcard whatever the registration order,
 * with backtracking; constrained parameters at one position are tried in registration order
 * before the unconstrained one.
 *
 * Trailing slash is strict: `/a/` and `/a` are different paths. Static matching is done on the
 * raw path; captured values are percent-decoded exactly once (malformed → bad_request).
 *
 * HEAD: an explicit HEAD route that matches wins; otherwise the GET route answers.
 * Precedence holds per method: `DELETE /users/me` may match `DELETE /users/:id` even when
 * `GET /users/me` exists.
 *
 * Results are read-only: static and cached results are frozen and shared between calls.
 */
import { PathCache } from "./cache.ts";
import { is_static, parse_pattern, shape_of } from "./pattern.ts";
import { insert, Leaf, match, Node } from "./radix.ts";
import { GET_INDEX, HEAD_INDEX, METHODS, RouterError, type FindResult, type Method, type Params } from "./types.ts";

export { METHODS, RouterError } from "./types.ts";
export type { FindResult, Method, Params, RouteMatch } from "./types.ts";

type Found<T> = Extract<FindResult<T>, { kind: "found" }>;

/** Everything registered for one method. */
class MethodTable<T> {
  /** Exact paths of static routes, answered without touching the tree. */
  readonly statics: Record<string, Found<T>> = Object.create(null);
  readonly tree = new Node<T>("");
  dynamic = false;
  constructor(readonly index: number) {}
}

const NOT_FOUND: FindResult<never> = Object.freeze({ kind: "not_found" });
const EMPTY_PARAMS: Params = Object.freeze(Object.create(null));

export class Router<T> {
  private readonly tables: Record<string, MethodTable<T>> = Object.create(null);
  private readonly by_index: MethodTable<T>[] = [];
  private readonly registered: { method: Method; path: string }[] = [];
  private readonly shapes = new Map<string, string>();
  private readonly cache: PathCache<FindResult<T>> | null;
  /** Capture bounds for the lookup in progress; find is synchronous, so one buffer serves all. */
  private caps = new Int32Array(8);

  constructor(options: { path_cache_size?: number } = {}) {
    const size = options.path_cache_size ?? 1024;
    if (!Number.isInteger(size) || size < 0) throw new RouterError(`path_cache_size must be a non-negative integer, got ${size}`);
    this.cache = size === 0 ? null : new PathCache<FindResult<T>>(size, METHODS.length);
    METHODS.forEach((method, index) => {
      const table = new MethodTable<T>(index);
      this.tables[method] = table;
      this.by_index.push(table);
    });
  }

  /** Entries in the path cache now (always at most `path_cache_size`). */
  get cache_size(): number {
    return this.cache === null ? 0 : this.cache.size;
  }

  add(method: Method, path: string, handler: T): void {
    const table = this.tables[method];
    if (table === undefined) throw new RouterError(`unknown method ${JSON.stringify(method)}`);
    if (typeof path !== "string") throw new RouterError(`route path must be a string`);
    const tokens = parse_pattern(path);
    const shape = `${method} ${shape_of(tokens)}`;
    const same = this.shapes.get(shape);
    if (same !== undefined) throw new RouterError(`duplicate route ${method} ${path} (same as ${method} ${same})`);
    if (is_static(tokens)) {
      table.statics[path] = Object.freeze({ kind: "found", handler, params: EMPTY_PARAMS, route: path });
    } else {
      const names = tokens.flatMap((t) => (t.kind === "static" ? [] : [t.name]));
      insert(table.tree, tokens, new Leaf(handler, path, names));
      table.dynamic = true;
      if (this.caps.length < names.length * 2) this.caps = new Int32Array(names.length * 2);
    }
    this.shapes.set(shape, path);
    this.registered.push({ method, path });
    this.cache?.clear();
  }

  /** Finds the route for `method` and `path` (the path without its query string). */
  find(method: string, path: string): FindResult<T> {
    const table = this.tables[method];
    if (table === undefined) return this.not_matched(path);
    const found = table.statics[path];
    if (found !== undefined) return found;
    const cache = this.cache;
    if (cache === null) return this.resolve(table, path);
    const hit = cache.get(table.index, path);
    if (hit !== undefined) return hit;
    const result = this.resolve(table, path);
    if (result.kind === "found") Object.freeze(result.params);
    else if (result.kind === "method_not_allowed") Object.freeze(result.allowed);
    cache.set(table.index, path, Object.freeze(result));
    return result;
  }

  routes(): { method: Method; path: string }[] {
    return this.registered.map((r) => ({ method: r.method, path: r.path }));
  }

  /** The lookup behind the static table and the cache. */
  private resolve(table: MethodTable<T>, path: string): FindResult<T> {
    if (table.dynamic) {
      const leaf = match(table.tree, path, 0, this.caps, 0);
      if (leaf !== null) return this.build(leaf, path);
    }
    if (table.index === HEAD_INDEX) {
      const get = this.by_index[GET_INDEX]!;
      const found = get.statics[path];
      if (found !== undefined) return found;
      if (get.dynamic) {
        const leaf = match(get.tree, path, 0, this.caps, 0);
        if (leaf !== null) return this.build(leaf, path);
      }
    }
    return this.not_matched(path);
  }

  private build(leaf: Leaf<T>, path: string): FindResult<T> {
    const names = leaf.names;
    const caps = this.caps;
    const params: Params = Object.create(null);
    for (let i = 0; i < names.length; i++) {
      let value = path.slice(caps[2 * i], caps[2 * i + 1]);
      if (value.indexOf("%") !== -1) {
        try {
          value = decodeURIComponent(value);
        } catch {
          return { kind: "bad_request", message: `malformed percent-encoding in parameter ${names[i]}` };
        }
      }
      params[names[i]!] = value;
    }
    return { kind: "found", handler: leaf.handler, params, route: leaf.route };
  }

  /** 405 when the path exists under other methods, else 404. Never an empty Allow list. */
  private not_matched(path: string): FindResult<T> {
    const allowed: Method[] = [];
    for (const table of this.by_index) {
      const exists = table.statics[path] !== undefined || (table.dynamic && match(table.tree, path, 0, this.caps, 0) !== null);
      if (exists) allowed.push(METHODS[table.index]!);
    }
    if (allowed.length === 0) return NOT_FOUND;
    if (allowed.includes("GET") && !allowed.includes("HEAD")) allowed.push("HEAD");
    return { kind: "method_not_allowed", allowed: allowed.sort() };
  }
}
