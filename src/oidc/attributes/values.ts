/**
 * Users' attribute values: checked against their definition's type, parsed from the CLI's
 * `KEY=VALUE`, read and written for one user. The API other parts call (SCIM, the admin API, the
 * console, the account page):
 *
 * - `read_user_attributes(store, user_id)`: `{ name: value }` of the attributes the user has,
 *   under their declared names.
 * - `set_user_attributes(store, user_id, values, now)`: sets each named attribute (a value of
 *   its type) or clears it (null), all or none; raises AdminError `invalid_request` naming the
 *   attribute when a name is not declared or a value breaks its type or size.
 * - `check_attribute_value(definition, value)`: the value as stored, or why it cannot be.
 * - `parse_attribute_assignments(["team=red,blue", "age="], definitions)`: the CLI's form.
 */
import { AdminError, invalid_field, not_found } from "../admin/errors.ts";
import { StoreReferenceError, type AttributeDefinitionRow, type JsonValue, type Store } from "../../store/types.ts";

/** Bounds of one value: a string's characters, a list's items and each item's characters. */
export const MAX_STRING = 1024;
export const MAX_ITEMS = 50;
export const MAX_ITEM = 256;

/** Control characters (C0, DEL, C1) have no place in a profile value, a claim or an LDAP entry. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export type ValueCheck = { ok: true; value: JsonValue } | { ok: false; problem: string };

function text_problem(text: string, max: number): string | null {
  if (text.length > max) return `longer than ${max} characters`;
  if (CONTROL.test(text)) return "contains control characters";
  return null;
}

/** Checks a value (already JSON-typed, as the admin API or SCIM sends it) against the definition's type. */
export function check_attribute_value(definition: AttributeDefinitionRow, value: unknown): ValueCheck {
  switch (definition.type) {
    case "string": {
      if (typeof value !== "string") return { ok: false, problem: "must be a string" };
      const problem = text_problem(value, MAX_STRING);
      return problem === null ? { ok: true, value } : { ok: false, problem };
    }
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return { ok: false, problem: "must be a finite number" };
      return { ok: true, value };
    case "boolean":
      return typeof value === "boolean" ? { ok: true, value } : { ok: false, problem: "must be true or false" };
    case "string[]": {
      if (!Array.isArray(value)) return { ok: false, problem: "must be a list of strings" };
      if (value.length > MAX_ITEMS) return { ok: false, problem: `has more than ${MAX_ITEMS} items` };
      for (const item of value) {
        if (typeof item !== "string") return { ok: false, problem: "must be a list of strings" };
        const problem = text_problem(item, MAX_ITEM);
        if (problem !== null) return { ok: false, problem: `an item is ${problem.replace("contains", "made of")}` };
      }
      return { ok: true, value: [...value] as string[] };
    }
  }
}

/**
 * A value typed as text (the CLI, a form field) as the definition's type: a number in JSON's
 * form, `true`/`false`, a list comma-separated (items trimmed, empty ones dropped). "" clears
 * (null).
 */
export function parse_attribute_text(definition: AttributeDefinitionRow, text: string): ValueCheck {
  if (text === "") return { ok: true, value: null };
  switch (definition.type) {
    case "string":
      return check_attribute_value(definition, text);
    case "number": {
      const trimmed = text.trim();
      // Number("") is 0 and Number("0x10") 16: only JSON's number syntax counts.
      if (!/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(trimmed)) return { ok: false, problem: `"${text}" is not a number` };
      return check_attribute_value(definition, Number(trimmed));
    }
    case "boolean":
      if (text === "true") return { ok: true, value: true };
      if (text === "false") return { ok: true, value: false };
      return { ok: false, problem: `"${text}" is not true or false` };
    case "string[]":
      return check_attribute_value(
        definition,
        text
          .split(",")
          .map((item) => item.trim())
          .filter((item) => item !== ""),
      );
  }
}

function definition_named(definitions: readonly AttributeDefinitionRow[], name: string): AttributeDefinitionRow | undefined {
  const key = name.toLowerCase();
  return definitions.find((d) => d.name.toLowerCase() === key);
}

/**
 * The CLI's repeatable `--attribute KEY=VALUE`: `KEY=` clears; a `string[]` attribute named more
 * than once collects every item (`--attribute team=red --attribute team=blue`). Keys are the
 * declared names, matched ignoring case.
 */
export function parse_attribute_assignments(assignments: readonly string[], definitions: readonly AttributeDefinitionRow[]): Record<string, JsonValue | null> {
  const out: Record<string, JsonValue | null> = {};
  for (const assignment of assignments) {
    const equals = assignment.indexOf("=");
    if (equals <= 0) throw invalid_field("attribute", `"${assignment}" is not KEY=VALUE`);
    const key = assignment.slice(0, equals);
    const definition = definition_named(definitions, key);
    if (definition === undefined) throw invalid_field("attribute", `no attribute "${key}" is declared (idp attributes list)`);
    const parsed = parse_attribute_text(definition, assignment.slice(equals + 1));
    if (!parsed.ok) throw invalid_field(definition.name, parsed.problem);
    const before = out[definition.name];
    if (definition.type === "string[]" && Array.isArray(before) && Array.isArray(parsed.value)) {
      const merged = check_attribute_value(definition, [...before, ...parsed.value]);
      if (!merged.ok) throw invalid_field(definition.name, merged.problem);
      out[definition.name] = merged.value;
    } else {
      out[definition.name] = parsed.value;
    }
  }
  return out;
}

/** The user's values by declared name (attributes without a value are absent). */
export async function read_user_attributes(store: Store, user_id: string): Promise<Record<string, JsonValue>> {
  const out: Record<string, JsonValue> = {};
  for (const row of await store.list_user_attribute_values([user_id])) out[row.name] = row.value;
  return out;
}

/**
 * Checks every value, then sets (or, for null, clears) them in one transaction. `only` limits
 * which attributes may be named (the account page: the user-editable ones).
 */
export async function set_user_attributes(
  store: Store,
  user_id: string,
  values: Readonly<Record<string, unknown>>,
  now: number,
  only?: (definition: AttributeDefinitionRow) => boolean,
): Promise<Record<string, JsonValue | null>> {
  const definitions = await store.list_attribute_definitions();
  const checked: Record<string, JsonValue | null> = {};
  const problems: { field: string; message: string }[] = [];
  for (const [name, value] of Object.entries(values)) {
    const definition = definition_named(definitions, name);
    if (definition === undefined || (only !== undefined && !only(definition))) {
      problems.push({ field: name, message: "is not a declared attribute" });
      continue;
    }
    if (value === null) {
      checked[definition.name] = null;
      continue;
    }
    const check = check_attribute_value(definition, value);
    if (check.ok) checked[definition.name] = check.value;
    else problems.push({ field: definition.name, message: check.problem });
  }
  if (problems.length > 0) throw new AdminError("invalid_request", problems.map((p) => `${p.field}: ${p.message}`).join("; "), problems);
  if (Object.keys(checked).length === 0) return checked;
  try {
    await store.set_user_attribute_values(user_id, checked, now);
  } catch (error) {
    // The user or a definition went between the read and the write.
    if (error instanceof StoreReferenceError) throw not_found("user", user_id);
    throw error;
  }
  return checked;
}

/** How a value reads in text (the CLI, a form field): the inverse of parse_attribute_text. */
export function attribute_text(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}
