import { MAX_CONSTRAINED_SEGMENT } from "./regex.ts";
import type { Token } from "./pattern.ts";
import { RouterError } from "./types.ts";

/** Where a dynamic route ends: its handler, pattern, and parameter names in capture order. */
export class Leaf<T> {
  constructor(readonly handler: T, readonly route: string, readonly names: readonly string[]) {}
}

export class ParamNode<T> {
  /** Holds what follows the parameter: static children starting with "/", or the leaf. */
  readonly next: Node<T> = new Node<T>("");
  constructor(readonly name: string, readonly source: string | null, readonly regex: RegExp | null) {}
}

/**
 * A radix-tree node: `part` is compressed static text (it may span several segments). Static
 * children are found by their first character through a dense table; parameters and the
 * wildcard hang on nodes whose text ends with "/".
 */
export class Node<T> {
  kids: Node<T>[] = [];
  table: (Node<T> | undefined)[] = [];
  table_min = 0;
  wide: Node<T>[] | null = null;
  /** Constrained parameters first (in registration order), the unconstrained one last. */
  params: ParamNode<T>[] | null = null;
  wildcard: Leaf<T> | null = null;
  leaf: Leaf<T> | null = null;
  constructor(public part: string) {}
}

/** Inserts a dynamic route; throws RouterError when it collides with one already there. */
export function insert<T>(root: Node<T>, tokens: Token[], leaf: Leaf<T>): void {
  let node = root;
  for (const token of tokens) {
    if (token.kind === "static") node = insert_static(node, token.text);
    else if (token.kind === "param") node = param_child(node, token.name, token.source, token.regex, leaf.route).next;
    else {
      if (node.wildcard !== null) throw new RouterError(`duplicate route ${leaf.route} (same as ${node.wildcard.route})`);
      node.wildcard = leaf;
      return;
    }
  }
  if (node.leaf !== null) throw new RouterError(`duplicate route ${leaf.route} (same as ${node.leaf.route})`);
  node.leaf = leaf;
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
  tail.table = node.table;
  tail.table_min = node.table_min;
  tail.wide = node.wide;
  tail.params = node.params;
  tail.wildcard = node.wildcard;
  tail.leaf = node.leaf;
  node.part = node.part.slice(0, at);
  node.kids = [];
  node.table = [];
  node.wide = null;
  node.params = null;
  node.wildcard = null;
  node.leaf = null;
  add_kid(node, tail);
}

function kid_for<T>(node: Node<T>, code: number): Node<T> | undefined {
  for (const kid of node.kids) if (kid.part.charCodeAt(0) === code) return kid;
  return undefined;
}

/** Rebuilds the first-character table; kids starting beyond ASCII are scanned instead. */
function add_kid<T>(node: Node<T>, kid: Node<T>): void {
  node.kids.push(kid);
  const codes = node.kids.map((k) => k.part.charCodeAt(0)).filter((c) => c < 128);
  const min = codes.length === 0 ? 0 : Math.min(...codes);
  const table: (Node<T> | undefined)[] = new Array(codes.length === 0 ? 0 : Math.max(...codes) - min + 1).fill(undefined);
  for (const k of node.kids) if (k.part.charCodeAt(0) < 128) table[k.part.charCodeAt(0) - min] = k;
  node.table = table;
  node.table_min = min;
  node.wide = node.kids.length === codes.length ? null : node.kids.filter((k) => k.part.charCodeAt(0) >= 128);
}

function param_child<T>(node: Node<T>, name: string, source: string | null, regex: RegExp | null, route: string): ParamNode<T> {
  const params = (node.params ??= []);
  for (const p of params) {
    if (p.name !== name) {
      throw new RouterError(`conflicting parameter names at one position: :${name} in ${route} vs :${p.name} already registered`);
    }
    if (p.source === source) return p;
  }
  const fresh = new ParamNode<T>(name, source, regex);
  if (regex === null) params.push(fresh);
  else {
    const plain = params.findIndex((p) => p.regex === null);
    params.splice(plain === -1 ? params.length : plain, 0, fresh);
  }
  return fresh;
}

/**
 * Matches `path` from `pos`, after `node.part` has been consumed, with precedence static >
 * parameter > wildcard and backtracking. Capture bounds go to `caps` (start, end pairs, one pair
 * per parameter on the way down); nothing is allocated unless a constraint must be tested.
 */
export function match<T>(node: Node<T>, path: string, pos: number, caps: Int32Array, depth: number): Leaf<T> | null {
  const len = path.length;
  if (pos === len) {
    if (node.leaf !== null) return node.leaf;
    if (node.wildcard !== null) {
      caps[depth] = caps[depth + 1] = pos;
      return node.wildcard;
    }
    return null;
  }
  const table = node.table;
  const code = path.charCodeAt(pos);
  const slot = code - node.table_min;
  let kid = slot >= 0 && slot < table.length ? table[slot] : undefined;
  if (kid === undefined && code >= 128 && node.wide !== null) kid = kid_for(node, code);
  if (kid !== undefined) {
    const part = kid.part;
    const plen = part.length;
    if (plen === 1 || (pos + plen <= len && path.startsWith(part, pos))) {
      const found = match(kid, path, pos + plen, caps, depth);
      if (found !== null) return found;
    }
  }
  const params = node.params;
  if (params !== null) {
    let end = path.indexOf("/", pos);
    if (end === -1) end = len;
    if (end !== pos) {
      for (let i = 0; i < params.length; i++) {
        const p = params[i]!;
        if (p.regex !== null && (end - pos > MAX_CONSTRAINED_SEGMENT || !p.regex.test(path.slice(pos, end)))) continue;
        caps[depth] = pos;
        caps[depth + 1] = end;
        const found = match(p.next, path, end, caps, depth + 2);
        if (found !== null) return found;
      }
    }
  }
  if (node.wildcard !== null) {
    caps[depth] = pos;
    caps[depth + 1] = len;
    return node.wildcard;
  }
  return null;
}
