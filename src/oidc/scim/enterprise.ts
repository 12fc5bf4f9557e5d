/**
 * The enterprise extension (RFC 7643 §4.3: employeeNumber, costCenter, organization, division,
 * department, manager) behind one small interface: read and write a user's values by name. Until
 * the values are mapped onto per-user custom attributes, `stored_enterprise` keeps them as one
 * JSON object per user (scim_users.enterprise, migration 030); the integration replaces it with
 * an implementation over the custom attributes, and nothing else in oidc/scim/ changes.
 */
import type { JsonObject, Store } from "../../store/types.ts";
import { invalid_value } from "./errors.ts";

/** The extension's attributes, as RFC 7643 §4.3 spells them. */
export const ENTERPRISE_NAMES = ["employeeNumber", "costCenter", "organization", "division", "department", "manager"] as const;

const MAX_VALUE = 256;

/** A user's enterprise values by name; `write` replaces them all (absent names are cleared). */
export interface EnterpriseAttributes {
  read(user_id: string): Promise<JsonObject>;
  write(user_id: string, values: JsonObject): Promise<void>;
}

export function stored_enterprise(store: Store, now: () => number): EnterpriseAttributes {
  return {
    async read(user_id) {
      return (await store.get_scim_user(user_id))?.enterprise ?? {};
    },
    async write(user_id, values) {
      const row = await store.get_scim_user(user_id);
      await store.put_scim_user({ user_id, external_id: row?.external_id ?? null, enterprise: values, updated_at: now() });
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
