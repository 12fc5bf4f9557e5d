/**
 * The admin API's representations of custom attribute definitions (zod): answers and request
 * bodies, and their OpenAPI components. The rules (names, types, scopes, claim names) are
 * oidc/attributes/definitions.ts's, the same as `idp attributes` applies.
 */
import { z } from "zod";
import { ATTRIBUTE_TYPES } from "../../../../store/types.ts";

const time = z.number().int().describe("Unix seconds");

export const AttributeSchema = z
  .object({
    name: z.string().describe("unique ignoring case; fixed at creation"),
    type: z.enum(ATTRIBUTE_TYPES).describe("fixed at creation"),
    scope: z.string().describe("the scope that releases the claim"),
    claim: z.string().describe("the claim name it is released under"),
    user_editable: z.boolean().describe("users edit it on the account page"),
    required: z.boolean().describe("users must have a value"),
    created_at: time,
    updated_at: time,
  })
  .meta({ id: "Attribute" });

const FIELDS = {
  scope: z.string().min(1).max(64),
  claim: z.string().min(1).max(64),
  user_editable: z.boolean(),
  required: z.boolean(),
};

export const AttributeCreateSchema = z
  .strictObject({
    name: z.string().min(1).max(64),
    type: z.enum(ATTRIBUTE_TYPES),
    scope: FIELDS.scope.optional().describe("default profile"),
    claim: FIELDS.claim.optional().describe("default the name"),
    user_editable: FIELDS.user_editable.optional(),
    required: FIELDS.required.optional(),
  })
  .meta({ id: "AttributeCreate" });

/** A change: the members sent replace the stored ones; the name and type stay. */
export const AttributePatchSchema = z
  .strictObject({
    scope: FIELDS.scope.optional(),
    claim: FIELDS.claim.optional(),
    user_editable: FIELDS.user_editable.optional(),
    required: FIELDS.required.optional(),
  })
  .meta({ id: "AttributePatch" });
