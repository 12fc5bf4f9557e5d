/**
 * PATCH (RFC 7644 §3.5.2) applied to a resource's representation: the operations `add`,
 * `replace` and `remove` (any case: Entra ID sends "Add", "Replace"), each with a path
 * (`attr`, `attr.sub`, `urn:…:attr`, `attr[filter]`, `attr[filter].sub`) or, for add and
 * replace, without one (the value's members, each a path). The result goes through the same
 * checks as a PUT (users.ts, groups.ts), so a PATCH can do nothing a replace could not.
 *
 * Where a value filter matches nothing, `add` and `replace` create the element from the
 * filter's `eq` terms when the filter is only such terms (`emails[type eq "work"].value`, as
 * Entra ID sends for a user without a work address); otherwise `replace` is `noTarget`.
 * `remove` of something absent changes nothing.
 */
import type { JsonObject, JsonValue } from "../../store/types.ts";
import { invalid_path, invalid_syntax, invalid_value, mutability, no_target } from "./errors.ts";
import { matches, parse_filter, type CompiledFilter } from "./filter.ts";
import { attribute_path, ENTERPRISE_SCHEMA, field, key_of, LIMITS, PATCH_SCHEMA, type ResourceKind } from "./schema.ts";

type Op = "add" | "replace" | "remove";
type Path = { steps: string[]; key: string; filter: CompiledFilter | null; sub: string | null };

/** Multi-valued attributes (RFC 7643 §4.1.2, §4.2). */
const MULTI_VALUED = new Set(["emails", "phonenumbers", "members", "groups"]);
/** Set by the server only (RFC 7643 §3.1, §4.1.2 groups: readOnly). */
const READ_ONLY = new Set(["id", "meta", "groups", "schemas"]);

function parse_path(kind: ResourceKind, text: string): Path {
  if (text.length > LIMITS.max_filter_length) throw invalid_path("the path is too long");
  const open = text.indexOf("[");
  if (open === -1) {
    const found = attribute_path(kind, text);
    if (found === null) throw invalid_path(`unknown attribute "${text.slice(0, 100)}" for ${kind}`);
    return { steps: found.steps, key: found.key, filter: null, sub: null };
  }
  const close = text.lastIndexOf("]");
  if (close < open) throw invalid_path(`"${text.slice(0, 100)}" has no closing bracket`);
  const rest = text.slice(close + 1);
  if (rest !== "" && !/^\.[A-Za-z][\w$-]*$/.test(rest)) throw invalid_path(`"${text.slice(0, 100)}" is not a valid path`);
  let compiled: CompiledFilter;
  try {
    compiled = parse_filter(kind, text.slice(0, close + 1));
  } catch (error) {
    throw invalid_path(error instanceof Error ? error.message : "invalid value filter");
  }
  if (compiled.op !== "[]") throw invalid_path(`"${text.slice(0, 100)}" is not a valid path`);
  const sub = rest === "" ? null : rest.slice(1);
  if (sub !== null && attribute_path(kind, `${compiled.path.steps.join(".")}.${sub}`) === null && !compiled.path.key.startsWith("urn:"))
    throw invalid_path(`unknown attribute "${sub}" of ${compiled.path.key}`);
  return { steps: compiled.path.steps, key: compiled.path.key, filter: compiled.inner, sub };
}

function is_object(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The object holding the last step, made on the way for add and replace; null when absent (remove). */
function parent_of(doc: JsonObject, steps: readonly string[], create: boolean): JsonObject | null {
  let node = doc;
  for (const step of steps.slice(0, -1)) {
    const key = key_of(node, step);
    if (!is_object(node[key])) {
      if (!create) return null;
      node[key] = {};
    }
    node = node[key] as JsonObject;
  }
  return node;
}

/** The elements a value filter's `eq` terms describe, when the filter is only such terms joined by and. */
function element_of(filter: CompiledFilter): JsonObject | null {
  if (filter.op === "eq" && filter.path.steps.length === 1) return { [filter.path.steps[0]!]: filter.value as JsonValue };
  if (filter.op !== "and") return null;
  const parts = filter.items.map(element_of);
  return parts.some((part) => part === null) ? null : Object.assign({}, ...parts);
}

function merge(target: JsonObject, value: JsonObject): void {
  for (const [key, item] of Object.entries(value)) target[key_of(target, key)] = item;
}

function apply_one(kind: ResourceKind, doc: JsonObject, op: Op, path: Path, value: JsonValue | undefined): void {
  const top = path.key.split(/[.:]/)[0]!;
  if (READ_ONLY.has(path.key.split(".")[0]!) || (kind === "User" && top === "groups")) throw mutability(`${path.key} is read-only`);
  const parent = parent_of(doc, path.steps, op !== "remove");
  if (parent === null) return;
  const key = key_of(parent, path.steps.at(-1)!);
  const multi = MULTI_VALUED.has(path.key.split(".")[0]!) && path.steps.length === 1;
  if (path.filter !== null) {
    const list = Array.isArray(parent[key]) ? (parent[key] as JsonValue[]) : [];
    const hits = list.filter((element) => matches(path.filter!, element));
    if (op === "remove") {
      if (path.sub === null) parent[key] = list.filter((element) => !hits.includes(element));
      else for (const hit of hits) if (is_object(hit)) delete hit[key_of(hit, path.sub)];
      return;
    }
    if (hits.length === 0) {
      const made = element_of(path.filter);
      if (made === null) throw no_target(`no value of ${path.key} matches the filter`);
      if (path.sub !== null) made[path.sub] = value ?? null;
      else if (is_object(value)) merge(made, value);
      parent[key] = [...list, made];
      return;
    }
    for (const hit of hits) {
      if (!is_object(hit)) continue;
      if (path.sub !== null) hit[key_of(hit, path.sub)] = value ?? null;
      else if (is_object(value)) merge(hit, value);
      else throw invalid_value(`the value for ${path.key}[…] must be an object`);
    }
    return;
  }
  if (op === "remove") {
    // Entra ID removes group members with a value naming them ({"op":"Remove","path":"members","value":[{"value":"…"}]}).
    if (multi && Array.isArray(parent[key]) && value !== undefined && value !== null) {
      const gone = new Set((Array.isArray(value) ? value : [value]).map((item) => (is_object(item) ? String(field(item, "value")) : String(item))));
      parent[key] = (parent[key] as JsonValue[]).filter((element) => !(is_object(element) && gone.has(String(field(element, "value")))));
    } else delete parent[key];
    return;
  }
  if (value === undefined) throw invalid_value(`${op} needs a value`);
  if (multi) {
    const items = Array.isArray(value) ? value : [value];
    if (op === "replace") parent[key] = items;
    else {
      // add: new values join; one with the same `value` as an existing one is not added twice.
      const list = Array.isArray(parent[key]) ? [...(parent[key] as JsonValue[])] : [];
      const seen = new Set(list.map((element) => (is_object(element) ? JSON.stringify(field(element, "value")) : JSON.stringify(element))));
      for (const item of items) if (!seen.has(is_object(item) ? JSON.stringify(field(item, "value")) : JSON.stringify(item))) list.push(item);
      parent[key] = list;
    }
    return;
  }
  // A complex attribute given an object: the sub-attributes sent replace or join the others (§3.5.2.1, §3.5.2.3).
  if (is_object(value) && is_object(parent[key])) merge(parent[key] as JsonObject, value);
  else parent[key] = value;
}

/** Applies a PatchOp message to `resource` (not changed); returns the patched document. */
export function apply_patch(kind: ResourceKind, resource: JsonObject, body: Record<string, unknown>): JsonObject {
  const schemas = field(body, "schemas");
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_SCHEMA)) throw invalid_syntax(`a PATCH body has schemas ["${PATCH_SCHEMA}"]`);
  const operations = field(body, "Operations");
  if (!Array.isArray(operations) || operations.length === 0) throw invalid_syntax("a PATCH body has a non-empty Operations array");
  if (operations.length > LIMITS.max_patch_operations) throw invalid_syntax(`a PATCH has at most ${LIMITS.max_patch_operations} operations`);
  const doc = structuredClone(resource);
  delete doc.meta;
  for (const operation of operations) {
    if (!is_object(operation)) throw invalid_syntax("each operation is an object");
    const op = String(field(operation, "op") ?? "").toLowerCase();
    if (op !== "add" && op !== "replace" && op !== "remove") throw invalid_syntax(`unknown op "${String(field(operation, "op")).slice(0, 20)}": use add, replace or remove`);
    const path = field(operation, "path");
    const value = field(operation, "value") as JsonValue | undefined;
    if (path !== undefined && path !== null && path !== "") {
      if (typeof path !== "string") throw invalid_path("path must be a string");
      apply_one(kind, doc, op, parse_path(kind, path), value);
      continue;
    }
    // §3.5.2.2: remove needs a path.
    if (op === "remove") throw no_target("remove needs a path");
    if (!is_object(value)) throw invalid_value(`${op} without a path needs an object value`);
    for (const [name, item] of Object.entries(value)) {
      if (name.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase() && is_object(item)) {
        for (const [sub, sub_value] of Object.entries(item)) apply_one(kind, doc, op, parse_path(kind, `${ENTERPRISE_SCHEMA}:${sub}`), sub_value);
      } else if (name.toLowerCase() === "id" && item === doc.id) {
        // Okta repeats the id in a replace without a path: unchanged, so not a change of a read-only attribute.
      } else if (name.toLowerCase() !== "schemas" && name.toLowerCase() !== "meta") apply_one(kind, doc, op, parse_path(kind, name), item);
    }
  }
  return doc;
}
