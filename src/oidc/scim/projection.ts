/**
 * `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5, §3.9): which attributes an answer
 * carries. `id` and `schemas` are always returned (RFC 7643 §7 returned "always"); `password`
 * never is (it is not in any representation). Names are checked like a filter's.
 */
import type { JsonObject } from "../../store/types.ts";
import { invalid_value } from "./errors.ts";
import { attribute_path, key_of, type AttributePath, type ResourceKind } from "./schema.ts";

export type Projection = { attributes: AttributePath[] | null; excluded: AttributePath[] };

const MAX_NAMES = 50;

function names(kind: ResourceKind, list: string | undefined): AttributePath[] | null {
  if (list === undefined || list.trim() === "") return null;
  const parts = list.split(",").map((part) => part.trim());
  if (parts.length > MAX_NAMES) throw invalid_value(`at most ${MAX_NAMES} attribute names`);
  return parts.map((part) => {
    const path = attribute_path(kind, part);
    if (path === null) throw invalid_value(`unknown attribute "${part.slice(0, 100)}" for ${kind}`);
    return path;
  });
}

export function projection_of(kind: ResourceKind, attributes: string | undefined, excluded: string | undefined): Projection {
  return { attributes: names(kind, attributes), excluded: names(kind, excluded) ?? [] };
}

const ALWAYS = new Set(["id", "schemas"]);

function pick(source: JsonObject, paths: readonly string[][]): JsonObject {
  const out: JsonObject = {};
  for (const steps of paths) {
    const key = key_of(source, steps[0]!);
    const value = source[key];
    if (value === undefined) continue;
    if (steps.length === 1) out[key] = value;
    else if (Array.isArray(value)) {
      const previous = Array.isArray(out[key]) ? (out[key] as JsonObject[]) : value.map(() => ({}));
      out[key] = value.map((element, i) => ({
        ...previous[i],
        ...(element !== null && typeof element === "object" && !Array.isArray(element) ? pick(element, [steps.slice(1)]) : {}),
      }));
    } else if (value !== null && typeof value === "object") out[key] = { ...((out[key] as JsonObject) ?? {}), ...pick(value, [steps.slice(1)]) };
  }
  return out;
}

function drop(target: JsonObject, steps: readonly string[]): void {
  const key = key_of(target, steps[0]!);
  if (steps.length === 1) {
    if (!ALWAYS.has(key)) delete target[key];
    return;
  }
  const value = target[key];
  const items = Array.isArray(value) ? value : [value];
  for (const item of items) if (item !== null && typeof item === "object" && !Array.isArray(item)) drop(item, steps.slice(1));
}

export function project(resource: JsonObject, projection: Projection): JsonObject {
  let out = resource;
  if (projection.attributes !== null) out = { ...pick(resource, [["schemas"], ["id"], ...projection.attributes.map((path) => path.steps)]) };
  else out = structuredClone(resource);
  for (const path of projection.excluded) drop(out, path.steps);
  return out;
}

/** Whether a projection leaves out a group's members (then they are not read at all). */
export function excludes(projection: Projection, key: string): boolean {
  if (projection.excluded.some((path) => path.key === key)) return true;
  return projection.attributes !== null && !projection.attributes.some((path) => path.key === key || path.key.startsWith(`${key}.`));
}
