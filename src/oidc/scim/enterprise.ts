/**
 * The enterprise extension (RFC 7643 §4.3: employeeNumber, costCenter, organization, division,
 * department, manager) behind one small interface: read and write a user's values by name.
 *
 * `attribute_enterprise` maps each field onto the custom attribute of the same name (ignoring
 * case; `manager` holds manager.value, the manager's id) when the operator declared one
 * (`idp attributes add department --type string`): the value is then a claim under the
 * attribute's scope, and a value set by the CLI, the admin API or the account page shows in the
 * SCIM User. A field with no declared attribute is kept as sent in scim_users.enterprise
 * (migration 030), so nothing a directory sends is lost; declaring the attribute later takes over
 * from the next write (reads prefer the attribute's value).
 */
import { read_user_attributes, set_user_attributes } from "../attributes/values.ts";
import type { JsonObject, JsonValue, Store } from "../../store/types.ts";
import { invalid_value } from "./errors.ts";

/** The extension's attributes, as RFC 7643 §4.3 spells them. */
export const ENTERPRISE_NAMES = ["employeeNumber", "costCenter", "organization", "division", "department", "manager"] as const;

const MAX_VALUE = 256;

/** A user's enterprise values by name; `write` replaces them all (absent names are cleared). */
export interface EnterpriseAttributes {
  read(user_id: string): Promise<JsonObject>;
  write(user_id: string, values: JsonObject): Promise<void>;
}

/** The declared attribute names (as declared) of the enterprise fields that have one. */
async function declared_fields(store: Store): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const definition of await store.list_attribute_definitions()) {
    const name = ENTERPRISE_NAMES.find((known) => known.toLowerCase() === definition.name.toLowerCase());
    if (name !== undefined) out.set(name, definition.name);
  }
  return out;
}

function attribute_value(name: string, value: JsonValue | undefined): JsonValue | null {
  if (value === undefined || value === null) return null;
  if (name !== "manager") return value;
  return typeof value === "object" && !Array.isArray(value) ? (value.value ?? null) : null;
}

export function attribute_enterprise(store: Store, now: () => number): EnterpriseAttributes {
  return {
    async read(user_id) {
      const out: JsonObject = { ...((await store.get_scim_user(user_id))?.enterprise ?? {}) };
      const declared = await declared_fields(store);
      if (declared.size === 0) return out;
      const values = await read_user_attributes(store, user_id);
      for (const [name, attribute] of declared) {
        const value = values[attribute];
        if (value === undefined || value === null) {
          delete out[name];
          continue;
        }
        if (name !== "manager") out[name] = value;
        else {
          // The display name the directory sent stays while the id is the one it went with.
          const kept = out.manager;
          const display = typeof kept === "object" && kept !== null && !Array.isArray(kept) && kept.value === value ? kept.displayName : undefined;
          out.manager = display === undefined ? { value: String(value) } : { value: String(value), displayName: display };
        }
      }
      return out;
    },
    async write(user_id, values) {
      const declared = await declared_fields(store);
      const to_attributes: Record<string, JsonValue | null> = {};
      const to_column: JsonObject = {};
      for (const name of ENTERPRISE_NAMES) {
        const attribute = declared.get(name);
        if (attribute !== undefined) to_attributes[attribute] = attribute_value(name, values[name]);
        // manager's displayName has no attribute: it is kept with the id beside it.
        if ((attribute === undefined || name === "manager") && values[name] !== undefined) to_column[name] = values[name];
      }
      // A value the attribute's type refuses is invalidValue naming the attribute (errors.ts); nothing is written.
      if (Object.keys(to_attributes).length > 0) await set_user_attributes(store, user_id, to_attributes, now());
      const row = await store.get_scim_user(user_id);
      await store.put_scim_user({ user_id, external_id: row?.external_id ?? null, enterprise: to_column, updated_at: now() });
    },
  };
}

/**
 * The extension object as sent, checked: known names only (any spelling of their case), strings
 * of at most 256 characters; `manager` a `{ value, displayName? }` object or, as Entra ID sends
 * it in a PATCH, the manager's id alone.
 */
export function checked_enterprise(sent: unknown): JsonObject {
  if (sent === undefined || sent === null) return {};
  if (typeof sent !== "object" || Array.isArray(sent)) throw invalid_value("the enterprise extension must be an object");
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(sent)) {
    const name = ENTERPRISE_NAMES.find((known) => known.toLowerCase() === key.toLowerCase());
    if (name === undefined) throw invalid_value(`the enterprise extension has no attribute "${key.slice(0, 60)}"`);
    if (value === null || value === "") continue;
    if (name === "manager") {
      const manager = typeof value === "string" ? { value } : value;
      if (typeof manager !== "object" || Array.isArray(manager)) throw invalid_value("manager must be an object with a value");
      const id = Object.entries(manager).find(([k]) => k.toLowerCase() === "value")?.[1];
      const display = Object.entries(manager).find(([k]) => k.toLowerCase() === "displayname")?.[1];
      if (id === undefined || id === null || id === "") continue;
      if (typeof id !== "string" || id.length > MAX_VALUE) throw invalid_value("manager.value must be a string of at most 256 characters");
      out.manager = typeof display === "string" ? { value: id, displayName: display.slice(0, MAX_VALUE) } : { value: id };
      continue;
    }
    if (typeof value !== "string" || value.length > MAX_VALUE) throw invalid_value(`${name} must be a string of at most ${MAX_VALUE} characters`);
    out[name] = value;
  }
  return out;
}
