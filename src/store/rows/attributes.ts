/**
 * Rows of `user_attribute_definitions`: the column spec (codec.ts encodes and decodes by it) and
 * the builder that completes a new row, shared by both adapters. `name_key`, the unique lookup
 * key, is the adapters' own and never reaches a row; values are stored as JSON text.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { AttributeDefinitionRow, JsonValue, NewAttributeDefinition, UserAttributeValue } from "../types.ts";

/** The columns of `user_attribute_definitions`. */
export const attribute_definition_spec: TableSpec<AttributeDefinitionRow> = {
  name: "text",
  type: "text",
  scope: "text",
  claim: "text",
  user_editable: "bool",
  required: "bool",
  created_at: "int",
  updated_at: "int",
};

/** Equal keys are the same attribute (names are ASCII: oidc/attributes/definitions.ts). */
export function attribute_key(name: string): string {
  return name.toLowerCase();
}

/** The complete row of a new definition. */
export function attribute_definition_row(input: NewAttributeDefinition): AttributeDefinitionRow {
  const created = input.created_at ?? now_seconds();
  return {
    name: input.name,
    type: input.type,
    scope: input.scope,
    claim: input.claim,
    user_editable: input.user_editable ?? false,
    required: input.required ?? false,
    created_at: created,
    updated_at: input.updated_at ?? created,
  };
}

/** A value row as both adapters read it (joined with its definition for the declared name). */
export type RawValue = { user_id: string; name: string; value: string; updated_at: number | string };

export function decode_value(raw: RawValue): UserAttributeValue {
  return { user_id: raw.user_id, name: raw.name, value: JSON.parse(raw.value) as JsonValue, updated_at: Number(raw.updated_at) };
}

export const VALUES_SELECT = "SELECT v.user_id, d.name, v.value, v.updated_at FROM user_attribute_values v JOIN user_attribute_definitions d ON d.name_key = v.name_key";
