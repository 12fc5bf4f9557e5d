/**
 * Filters (RFC 7644 §3.4.2.2), hostile input: a length and nesting limit first, then the
 * maintained parser (`scim2-parse-filter`, text → syntax tree), then every attribute checked
 * against the resource type's (schema.ts) and the tree compiled once; `matches` evaluates it
 * over one representation. Unknown attributes, bad syntax, and operators that make no sense for
 * a value (`gt` on a boolean) are `invalidFilter`; too many comparisons too.
 */
import { parse, type Filter } from "scim2-parse-filter";
import { invalid_filter } from "./errors.ts";
import { ATTRIBUTES, attribute_path, CASE_EXACT, DATE_TIMES, key_of, LIMITS, type AttributePath, type ResourceKind } from "./schema.ts";

type Comparison = "eq" | "ne" | "co" | "sw" | "ew" | "gt" | "lt" | "ge" | "le";
type Value = string | number | boolean | null;

export type CompiledFilter =
  | { op: "and" | "or"; items: CompiledFilter[] }
  | { op: "not"; item: CompiledFilter }
  | { op: "pr"; path: AttributePath }
  | { op: Comparison; path: AttributePath; value: Value }
  | { op: "[]"; path: AttributePath; inner: CompiledFilter };

/** The deepest nesting of parentheses and brackets outside string literals. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "(" || c === "[") deepest = Math.max(deepest, ++depth);
    else if (c === ")" || c === "]") depth--;
  }
  return deepest;
}

/** Parses and checks a filter for resources of `kind`. */
export function parse_filter(kind: ResourceKind, text: string): CompiledFilter {
  if (text.length > LIMITS.max_filter_length) throw invalid_filter(`the filter is longer than ${LIMITS.max_filter_length} characters`);
  if (text.trim() === "") throw invalid_filter("the filter is empty");
  // The parser descends recursively: a bounded nesting keeps a hostile filter from exhausting the stack.
  if (nesting(text) > LIMITS.max_filter_depth) throw invalid_filter(`the filter nests deeper than ${LIMITS.max_filter_depth} levels`);
  // RFC 7644 §3.4.2.2: compValue is a JSON string. The parser's lexer misreads `\\"` and keeps
  // other escapes raw, so each literal is decoded here as JSON and the parser sees its index.
  const literals: string[] = [];
  const replaced = text.replace(/"(?:[^"\\]|\\.)*"/g, (literal) => {
    let decoded: unknown;
    try {
      decoded = JSON.parse(literal);
    } catch {
      throw invalid_filter(`${literal.slice(0, 60)} is not a valid JSON string`);
    }
    literals.push(decoded as string);
    return `"${literals.length - 1}"`;
  });
  let tree: Filter;
  try {
    tree = parse(replaced);
  } catch (error) {
    throw invalid_filter(`the filter is not valid: ${error instanceof Error ? error.message.slice(0, 200) : "syntax error"}`);
  }
  const terms = { count: 0 };
  return compile(kind, tree, null, terms, literals);
}

function resolve(kind: ResourceKind, path: string, parent: AttributePath | null): AttributePath {
  if (parent === null) {
    const found = attribute_path(kind, path);
    if (found === null) throw invalid_filter(`unknown attribute "${path.slice(0, 100)}" for ${kind}`);
    return found;
  }
  // Inside brackets: a sub-attribute of the parent (RFC 7644 §3.4.2.2 valuePath).
  const key = `${parent.key}.${path.toLowerCase()}`;
  if (!/^\$?[A-Za-z][\w$-]*$/.test(path) || !ATTRIBUTES[kind].has(key)) throw invalid_filter(`unknown attribute "${path.slice(0, 100)}" in ${parent.key}[…]`);
  return { key, steps: [path] };
}

function compile(kind: ResourceKind, node: Filter, parent: AttributePath | null, terms: { count: number }, literals: readonly string[]): CompiledFilter {
  if (++terms.count > LIMITS.max_filter_terms) throw invalid_filter(`the filter has more than ${LIMITS.max_filter_terms} terms`);
  switch (node.op) {
    case "and":
    case "or":
      return { op: node.op, items: (node as { filters: Filter[] }).filters.map((item) => compile(kind, item, parent, terms, literals)) };
    case "not":
      return { op: "not", item: compile(kind, (node as { filter: Filter }).filter, parent, terms, literals) };
    case "[]": {
      if (parent !== null) throw invalid_filter("a value filter cannot hold another");
      const { attrPath, valFilter } = node as { attrPath: string; valFilter: Filter };
      const path = resolve(kind, attrPath, null);
      return { op: "[]", path, inner: compile(kind, valFilter, path, terms, literals) };
    }
    case "pr":
      return { op: "pr", path: resolve(kind, (node as { attrPath: string }).attrPath, parent) };
    default: {
      const { attrPath, compValue } = node as { op: Comparison; attrPath: string; compValue: Value };
      const op = node.op as Comparison;
      if (!["eq", "ne", "co", "sw", "ew", "gt", "lt", "ge", "le"].includes(op)) throw invalid_filter(`unknown operator "${String(node.op).slice(0, 20)}"`);
      if ((typeof compValue === "boolean" || compValue === null) && op !== "eq" && op !== "ne") throw invalid_filter(`"${op}" does not compare with ${String(compValue)}`);
      // Every string literal was replaced by its index in parse_filter.
      const value = typeof compValue === "string" ? (literals[Number(compValue)] ?? compValue) : compValue;
      return { op, path: resolve(kind, attrPath, parent), value };
    }
  }
}

/** The values at `steps` of `node`: arrays flattened; a multi-valued complex attribute without a sub-attribute gives its elements' `value`s. */
function values_at(node: unknown, steps: readonly string[]): unknown[] {
  return raw_values(node, steps).map((value) => (value !== null && typeof value === "object" && "value" in value ? (value as { value: unknown }).value : value));
}

function compare(op: Comparison, key: string, actual: unknown, wanted: Value): boolean {
  if (actual === null || actual === undefined) return op === "ne" ? wanted !== null : op === "eq" && wanted === null;
  if (typeof wanted === "boolean" || wanted === null) return op === "eq" ? actual === wanted : actual !== wanted;
  if (typeof actual === "boolean") return op === "ne";
  let a: string | number;
  let b: string | number;
  if (DATE_TIMES.has(key)) {
    a = Date.parse(String(actual));
    b = Date.parse(String(wanted));
    if (Number.isNaN(b)) throw invalid_filter(`"${String(wanted).slice(0, 40)}" is not a dateTime`);
  } else if (typeof actual === "number" && typeof wanted === "number") {
    a = actual;
    b = wanted;
  } else {
    const exact = CASE_EXACT.has(key);
    a = exact ? String(actual) : String(actual).toLowerCase();
    b = exact ? String(wanted) : String(wanted).toLowerCase();
  }
  switch (op) {
    case "eq":
      return a === b;
    case "ne":
      return a !== b;
    case "co":
      return String(a).includes(String(b));
    case "sw":
      return String(a).startsWith(String(b));
    case "ew":
      return String(a).endsWith(String(b));
    case "gt":
      return a > b;
    case "ge":
      return a >= b;
    case "lt":
      return a < b;
    case "le":
      return a <= b;
  }
}

/** Does the representation `node` (a resource, or an element inside brackets) match? */
export function matches(filter: CompiledFilter, node: unknown): boolean {
  switch (filter.op) {
    case "and":
      return filter.items.every((item) => matches(item, node));
    case "or":
      return filter.items.some((item) => matches(item, node));
    case "not":
      return !matches(filter.item, node);
    case "pr":
      return values_at(node, filter.path.steps).some((value) => value !== null && value !== "" && !(typeof value === "object" && Object.keys(value).length === 0));
    case "[]": {
      const elements = raw_values(node, filter.path.steps);
      return elements.some((element) => matches(filter.inner, element));
    }
    default: {
      const values = values_at(node, filter.path.steps);
      if (values.length === 0) return compare(filter.op, filter.path.key, null, filter.value);
      return filter.op === "ne"
        ? values.every((value) => compare("ne", filter.path.key, value, filter.value))
        : values.some((value) => compare(filter.op, filter.path.key, value, filter.value));
    }
  }
}

/** The elements at `steps` (arrays flattened), without taking their `value`: what a value filter looks into. */
export function raw_values(node: unknown, steps: readonly string[]): unknown[] {
  let current: unknown[] = [node];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const item of current) {
      if (item === null || typeof item !== "object" || Array.isArray(item)) continue;
      const value = (item as Record<string, unknown>)[key_of(item as Record<string, unknown>, step)];
      if (Array.isArray(value)) next.push(...value);
      else if (value !== undefined) next.push(value);
    }
    current = next;
  }
  return current;
}

/** The single `attr eq "value"` a store index can answer (userName, externalId, emails.value, displayName, id), or null. */
export function indexed_equality(filter: CompiledFilter): { key: string; value: string } | null {
  if (filter.op !== "eq" || typeof filter.value !== "string") return null;
  return ["username", "externalid", "emails.value", "emails", "displayname", "id"].includes(filter.path.key) ? { key: filter.path.key, value: filter.value } : null;
}
