/** Store types: custom user attributes (oidc/attributes/). The rules every adapter keeps are in ../types.ts. */

import type { JsonValue, UnixSeconds } from "./common.ts";

/** The value types an attribute may have (oidc/attributes/values.ts checks values against them). */
export const ATTRIBUTE_TYPES = ["string", "number", "boolean", "string[]"] as const;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

/** One attribute the operator declared (`idp attributes add`). */
export type AttributeDefinitionRow = {
  /** As declared; unique case-insensitively. */
  name: string;
  type: AttributeType;
  /** The scope that releases it as a claim (a standard scope or an operator's own). */
  scope: string;
  /** The claim (and SAML/LDAP attribute) name it is released under; the name unless renamed. */
  claim: string;
  /** Users may set it on the account page. */
  user_editable: boolean;
  /** Users should have it: the account page asks for it (the operator's tools do not enforce it on old users). */
  required: boolean;
  created_at: UnixSeconds;
  updated_at: UnixSeconds;
};

export type NewAttributeDefinition = Pick<AttributeDefinitionRow, "name" | "type" | "scope" | "claim"> & Partial<Omit<AttributeDefinitionRow, "name" | "type" | "scope" | "claim">>;

/** What an update may change: never the name or the type (stored values keep their meaning). */
export type AttributeDefinitionPatch = Partial<Pick<AttributeDefinitionRow, "scope" | "claim" | "user_editable" | "required">>;

/** One user's value of one attribute, named by the definition's name as declared. */
export type UserAttributeValue = { user_id: string; name: string; value: JsonValue; updated_at: UnixSeconds };

export interface AttributeStore {
  /** Raises StoreConflictError when the name is taken (case-insensitively). */
  create_attribute_definition(definition: NewAttributeDefinition): Promise<AttributeDefinitionRow>;
  /** Case-insensitive. */
  get_attribute_definition(name: string): Promise<AttributeDefinitionRow | null>;
  /** Ordered by name, case-insensitively. */
  list_attribute_definitions(): Promise<AttributeDefinitionRow[]>;
  /** Null when there is no such definition. `updated_at` becomes `now`. */
  update_attribute_definition(name: string, patch: AttributeDefinitionPatch, now: UnixSeconds): Promise<AttributeDefinitionRow | null>;
  /** Deletes its values too. False when there is no such definition. */
  delete_attribute_definition(name: string): Promise<boolean>;
  /** The values of these users, in no particular order; users without values have no rows. */
  list_user_attribute_values(user_ids: readonly string[]): Promise<UserAttributeValue[]>;
  /**
   * Sets (a value) or clears (null) the named attributes of one user, all or none (one
   * transaction). Names are matched case-insensitively; the caller checked the values' types.
   * Raises StoreReferenceError when the user or a definition does not exist.
   */
  set_user_attribute_values(user_id: string, values: Readonly<Record<string, JsonValue | null>>, now: UnixSeconds): Promise<void>;
}
