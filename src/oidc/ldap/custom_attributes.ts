/**
 * Custom user attributes (oidc/attributes/) on user entries: each under its claim name when that
 * is a valid LDAP attribute description (RFC 4512 §1.4 `keystring`: a letter, then letters,
 * digits or hyphens; so a claim with `_` is not released here) and not the name of a type the
 * directory already has (schema.ts: `mail`, `cn`… stay the standard ones). Strings and lists
 * compare as text (caseIgnoreMatch), numbers as integers (integerMatch: a fractional value is
 * returned but matches no filter), booleans as the LDAP Boolean `TRUE`/`FALSE` (RFC 4517 §3.3.3).
 * They are user attributes: returned with `*` or when asked for by name, and filterable.
 */
import type { AttributeDefinitionRow, JsonValue } from "../../store/types.ts";
import { attribute_type, type AttributeType } from "./schema.ts";

const KEYSTRING = /^[A-Za-z][A-Za-z0-9-]*$/;

/** A released attribute: its definition and the type entries carry it under. */
export type CustomType = { definition: AttributeDefinitionRow; type: AttributeType };

/** The definitions released in the directory, each with its type. */
export function custom_types(definitions: readonly AttributeDefinitionRow[]): CustomType[] {
  return definitions
    .filter((definition) => KEYSTRING.test(definition.claim) && attribute_type(definition.claim) === null)
    .map((definition) => ({
      definition,
      type: { name: definition.claim, oid: "", aliases: [], syntax: definition.type === "number" ? "integer" : "text", operational: false },
    }));
}

/** The types by lowercased name, as entries carry them (filter_match.ts type_in). */
export function types_by_name(types: readonly CustomType[]): Record<string, AttributeType> {
  return Object.fromEntries(types.map(({ type }) => [type.name.toLowerCase(), type]));
}

/** A value as LDAP strings: a list as several values, a boolean TRUE/FALSE, a number in JSON's form. */
export function ldap_values(value: JsonValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => ldap_values(item));
  if (typeof value === "boolean") return [value ? "TRUE" : "FALSE"];
  if (typeof value === "object") return [];
  return [String(value)];
}
