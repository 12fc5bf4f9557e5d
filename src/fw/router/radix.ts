import { MAX_CONSTRAINED_SEGMENT } from "./regex.ts";
import type { Token } from "./pattern.ts";
import { Slots } from "./slots.ts";

/** A registered dynamic route: its handler, pattern, and parameter names in capture order. */
export class Route<T> {
  constructor(
    readonly handler: T,
    readonly route: string,
    readonly names: readonly string[],
  ) {}
}

/** The routes that end at one place in the tree, one per method. */
export type Leaf<T> = Slots<Route<T>>;

export class ParamNode<T> {
  /** Holds what follows the parameter: static children starting with "/", or the leaf. */
  readonly next: Node<T> = new Node<T>("");
  constructor(
    readonly source: string | null,
    readonly regex: RegExp | null,
  ) {}
}

/**
 * A radix-tree node: `part` is compressed static text (it may span several segments). Static
 * children are found by their first character; parameters and the wildcard hang on nodes whose
 * text ends with "/".
 */
export class Node<T> {
  kids: Node<T>[] = [];
  /** Kids by the char code their text starts with (integer keys: indexed storage, no hashing). */
  by_first: Record<number, Node<T>> | null = null;
  /** Constrained parameters first (in registration order), the unconstrained one last. */
  params: ParamNode<T>[] | null = null;
  wildcard: Leaf<T> | null = null;
  leaf: Leaf<T> | null = null;
  constructor(public part: string) {}
}

/**
 * Inserts a dynamic route for one method slot. The caller has ruled out duplicates and
 * conflicting names, so nothing here can fail halfway.
 */
export function insert<T>(root: Node<T>, tokens: Token[], method_index: number, route: Route<T>): void {
  let node = root;
  for (const token of tokens) {
    if (token.kind === "static") node = insert_static(node, token.text);
    else if (token.kind === "param") node = param_child(node, token.source, token.regex).next;
    else {
      (node.wildcard ??= new Slots()).put(method_index, route);
      return;
    }
  }
  (node.leaf ??= new Slots()).put(method_index, route);
}

function insert_static<T>(node: Node<T>, text: string): Node<T> {
  while (text !== "") {
    const child = kid_for(node, text.charCodeAt(0));
    if (child === undefined) {
      const fresh = new Node<T>(text);
      add_kid(node, fresh);
      return fresh;
    }
    const part = child.part;
    let common = 1;
    while (common < part.length && common < text.length && part.charCodeAt(common) === text.charCodeAt(common)) common++;
    if (common < part.length) split(child, common);
    node = child;
    text = text.slice(common);
  }
  return node;
}

/** Splits `node` at `at` in place, so its parent's table keeps pointing at the prefix. */
function split<T>(node: Node<T>, at: number): void {
  const tail = new Node<T>(node.part.slice(at));
  tail.kids = node.kids;
  tail.by_first = node.by_first;
  tail.params = node.params;
  tail.wildcard = node.wildcard;
  tail.leaf = node.leaf;
  node.part = node.part.slice(0, at);
  node.kids = [];
  node.by_first = null;
  node.params = null;
  node.wildcard = null;
  node.leaf = null;
  add_kid(node, tail);
}

function kid_for<T>(node: Node<T>, code: number): Node<T> | undefined {
  for (const kid of node.kids) if (kid.part.charCodeAt(0) === code) return kid;
  return undefined;
}

function add_kid<T>(node: Node<T>, kid: Node<T>): void {
  node.kids.push(kid);
  (node.by_first ??= Object.create(null) as Record<number, Node<T>>)[kid.part.charCodeAt(0)] = kid;
}

/** Parameters at one position share a node per constraint; names live on the routes. */
function param_child<T>(node: Node<T>, source: string | null, regex: RegExp | null): ParamNode<T> {
  const params = (node.params ??= []);
  for (const p of params) if (p.source === source) return p;
  const fresh = new ParamNode<T>(source, regex);
  if (regex === null) params.push(fresh);
  else {
    const plain = params.findIndex((p) => p.regex === null);
    params.splice(plain === -1 ? params.length : plain, 0, fresh);
  }
  return fresh;
}

let seen = false;
let escaped = false;

/** Whether the last `walk` passed a route that matched the path under some other method. */
export function walk_saw_route(): boolean {
  return seen;
}

/** Whether a segment the last `walk` captured may hold a "%" (false means none does). */
export function walk_saw_escape(): boolean {
  return escaped;
}

/**
 * Finds the route for `path` under one method slot (ANY_METHOD: none, to learn whether any
 * route matches), with precedence static > parameter > wildcard and backtracking. Capture bounds go to
 * `caps` as (start, end) pairs in parameter order; nothing is allocated unless a constraint must
 * be tested.
 */
export function walk<T>(root: Node<T>, path: string, method_index: number, caps: Int32Array): Route<T> | null {
  seen = false;
  escaped = false;
  // Every pattern starts with "/", so the root has one kid and nothing else: start there.
  const top = root.kids[0];
  if (top === undefined || path.charCodeAt(0) !== 47 || !has_part(path, 0, path.length, top.part)) return null;
  return match(top, path, top.part.length, caps, 0, method_index);
}

function match<T>(node: Node<T>, path: string, pos: number, caps: Int32Array, depth: number, mi: number): Route<T> | null {
  const len = path.length;
  // A choice with no alternative left after it continues this loop instead of recursing.
  descend: for (;;) {
    if (pos === len) {
      if (node.leaf !== null) {
        const route = node.leaf.by_method[mi];
        if (route !== undefined) return route;
        seen = true;
      }
      return node.wildcard === null ? null : wildcard(node.wildcard, path, pos, len, caps, depth, mi);
    }
    const kid = node.by_first === null ? undefined : node.by_first[path.charCodeAt(pos)];
    if (kid !== undefined && has_part(path, pos, len, kid.part)) {
      if (node.params === null && node.wildcard === null) {
        pos += kid.part.length;
        node = kid;
        continue;
      }
      const found = match(kid, path, pos + kid.part.length, caps, depth, mi);
      if (found !== null) return found;
    }
    const params = node.params;
    if (params !== null) {
      const end = segment_end(path, pos, len);
      if (end !== pos && params.length === 1 && node.wildcard === null && params[0]!.regex === null) {
        // The common case, one plain parameter and nothing to fall back to: no loop, no recursion.
        caps[depth] = pos;
        caps[depth + 1] = end;
        const next = params[0]!.next;
        if (end === len) {
          const route = next.leaf === null ? undefined : next.leaf.by_method[mi];
          if (route !== undefined) return route;
          if (next.leaf !== null) seen = true;
          return null;
        }
        const slash = next.kids.length === 0 ? undefined : next.kids[0]!;
        if (slash === undefined || !has_part(path, end, len, slash.part)) return null;
        node = slash;
        pos = end + slash.part.length;
        depth += 2;
        continue;
      }
      if (end !== pos) {
        const last = params.length - 1;
        for (let i = 0; i <= last; i++) {
          const p = params[i]!;
          if (p.regex !== null && (end - pos > MAX_CONSTRAINED_SEGMENT || !p.regex.test(path.slice(pos, end)))) continue;
          caps[depth] = pos;
          caps[depth + 1] = end;
          // What follows a parameter is the end of the path or a kid starting with "/": go straight there.
          const next = p.next;
          if (end === len) {
            if (next.leaf === null) continue;
            const route = next.leaf.by_method[mi];
            if (route !== undefined) return route;
            seen = true;
            continue;
          }
          const slash = next.kids.length === 0 ? undefined : next.kids[0]!;
          if (slash === undefined || !has_part(path, end, len, slash.part)) continue;
          if (i === last && node.wildcard === null) {
            node = slash;
            pos = end + slash.part.length;
            depth += 2;
            continue descend;
          }
          const found = match(slash, path, end + slash.part.length, caps, depth + 2, mi);
          if (found !== null) return found;
        }
      }
    }
    return node.wildcard === null ? null : wildcard(node.wildcard, path, pos, len, caps, depth, mi);
  }
}

/** Whether `part` is at `pos` in `path`; its first character is already known to match. */
function has_part(path: string, pos: number, len: number, part: string): boolean {
  const plen = part.length;
  if (pos + plen > len) return false;
  for (let k = 1; k < plen; k++) if (path.charCodeAt(pos + k) !== part.charCodeAt(k)) return false;
  return true;
}

/**
 * The index of the next "/" from `pos`, or `len`; notes a "%" on the way. Short segments are
 * scanned inline (cheaper than a native call), long ones natively.
 */
function segment_end(path: string, pos: number, len: number): number {
  const stop = Math.min(pos + 16, len);
  for (let i = pos; i < stop; i++) {
    const c = path.charCodeAt(i);
    if (c === 47) return i;
    if (c === 37) escaped = true;
  }
  if (stop === len) return len;
  let end = path.indexOf("/", stop);
  if (end === -1) end = len;
  const percent = path.indexOf("%", stop);
  if (percent !== -1 && percent < end) escaped = true;
  return end;
}

function wildcard<T>(leaf: Leaf<T>, path: string, pos: number, len: number, caps: Int32Array, depth: number, mi: number): Route<T> | null {
  const route = leaf.by_method[mi];
  if (route === undefined) {
    seen = true;
    return null;
  }
  // The whole path (a "%" in static text only costs a closer look later): cheaper than from `pos`.
  if (path.includes("%")) escaped = true;
  caps[depth] = pos;
  caps[depth + 1] = len;
  return route;
}
