/**
 * The operator's attribute definitions (`idp attributes`, the admin API, the console): their
 * names, types, the scope each is released under and the claim name it takes.
 *
 * Rules:
 * - A name is a safe identifier (`[A-Za-z][A-Za-z0-9_]*`, up to 64): it reads the same in a JSON
 *   claim, a SAML attribute, an LDAP attribute description (RFC 4512 §1.4 `keystring`, once `_`
 *   is mapped: ldap/entries.ts) and a SCIM attribute (RFC 7643 §2.1 ATTRNAME), and is unique
 *   ignoring case (LDAP compares descriptions so).
 * - The claim it is released under (its name unless `claim` renames it) may not be a registered
 *   claim (RESERVED_CLAIMS: sub, iss, email, name…, and groups/roles), nor another attribute's
 *   claim, ignoring case: a custom attribute never shadows a standard claim.
 * - The scope is a standard scope that releases claims (profile, email, address, phone, groups)
 *   or the operator's own scope name; never offline_access or the admin API's scope.
 * - The type is fixed at creation (stored values keep their meaning); scope, claim and the flags
 *   change with `update`. Removing a definition removes every user's value of it.
 */
import { AdminError, invalid_field, not_found } from "../admin/errors.ts";
import { ADMIN_SCOPE } from "../admin/scope.ts";
import { CLAIM_NAME, CLAIM_NAME_RULE, DEFAULT_GROUPS_CLAIM, RESERVED_CLAIMS, ROLES_CLAIM } from "../claims/groups.ts";
import { ATTRIBUTE_TYPES, StoreConflictError, type AttributeDefinitionPatch, type AttributeDefinitionRow, type AttributeType, type Store } from "../../store/types.ts";

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const ATTRIBUTE_NAME_RULE = "1 to 64 ASCII letters, digits or _, starting with a letter";
/** An operator's scope: lowercase, so it cannot pass for another by case. */
const SCOPE = /^[a-z][a-z0-9_.:-]{0,63}$/;
const SCOPE_RULE = "1 to 64 lowercase ASCII letters, digits or _ . : -, starting with a letter";
/** Standard scopes an attribute may join: those that release claims (claims/scopes.ts). */
const CLAIM_SCOPES: ReadonlySet<string> = new Set(["openid", "profile", "email", "address", "phone", "groups"]);
const NOT_SCOPES: ReadonlySet<string> = new Set(["offline_access", ADMIN_SCOPE]);
/** The most attributes one provider declares: each is read with every token and page. */
export const MAX_ATTRIBUTES = 100;

/** Claim names no attribute may be released under, lowercased. */
const RESERVED: ReadonlySet<string> = new Set([...RESERVED_CLAIMS, DEFAULT_GROUPS_CLAIM, ROLES_CLAIM].map((claim) => claim.toLowerCase()));

export type AttributeInput = {
  name: string;
  type: string;
  scope?: string | undefined;
  claim?: string | undefined;
  user_editable?: boolean | undefined;
  required?: boolean | undefined;
};

export type AttributeUpdate = { scope?: string | undefined; claim?: string | undefined; user_editable?: boolean | undefined; required?: boolean | undefined };

/** The scope attributes join when none is given. */
export const DEFAULT_ATTRIBUTE_SCOPE = "profile";

export function is_attribute_type(type: string): type is AttributeType {
  return (ATTRIBUTE_TYPES as readonly string[]).includes(type);
}

/** Why `scope` cannot release attributes; null when it can. */
export function attribute_scope_problem(scope: string): string | null {
  if (NOT_SCOPES.has(scope)) return `"${scope}" releases no claims: use profile, email, address, phone, groups or a scope of your own`;
  if (CLAIM_SCOPES.has(scope) || SCOPE.test(scope)) return null;
  return `"${scope}" is not valid: use a standard scope or ${SCOPE_RULE}`;
}

function check_claim(claim: string, others: readonly AttributeDefinitionRow[], field: "claim" | "name"): void {
  if (!CLAIM_NAME.test(claim)) throw invalid_field("claim", `"${claim}" is not valid: use ${CLAIM_NAME_RULE}`);
  if (RESERVED.has(claim.toLowerCase())) {
    const hint = field === "name" ? "; keep the name and release it under another claim with --claim" : "";
    throw invalid_field(field, `"${claim}" is a registered claim name${hint}`);
  }
  const taken = others.find((other) => other.claim.toLowerCase() === claim.toLowerCase());
  if (taken !== undefined) throw invalid_field("claim", `"${claim}" is already the claim of attribute ${taken.name}`);
}

/** Declares an attribute; `invalid_request` naming the field, `conflict` when the name is taken. */
export async function add_attribute(store: Store, input: AttributeInput, now: number): Promise<AttributeDefinitionRow> {
  if (!NAME.test(input.name)) throw invalid_field("name", `"${input.name}" is not valid: use ${ATTRIBUTE_NAME_RULE}`);
  if (!is_attribute_type(input.type)) throw invalid_field("type", `"${input.type}" is not a type: use one of ${ATTRIBUTE_TYPES.join(", ")}`);
  const scope = input.scope ?? DEFAULT_ATTRIBUTE_SCOPE;
  const scope_problem = attribute_scope_problem(scope);
  if (scope_problem !== null) throw invalid_field("scope", scope_problem);
  const existing = await store.list_attribute_definitions();
  const taken = () => new AdminError("conflict", `attribute ${input.name} exists already`, [{ field: "name", message: "is taken" }]);
  if (existing.some((d) => d.name.toLowerCase() === input.name.toLowerCase())) throw taken();
  if (existing.length >= MAX_ATTRIBUTES) throw new AdminError("conflict", `at most ${MAX_ATTRIBUTES} attributes can be declared`);
  const claim = input.claim ?? input.name;
  check_claim(claim, existing, input.claim === undefined ? "name" : "claim");
  try {
    return await store.create_attribute_definition({
      name: input.name,
      type: input.type,
      scope,
      claim,
      user_editable: input.user_editable ?? false,
      required: input.required ?? false,
      created_at: now,
    });
  } catch (error) {
    if (error instanceof StoreConflictError) throw taken();
    throw error;
  }
}

/** The definition named `name` (ignoring case), or not_found. */
export async function show_attribute(store: Store, name: string): Promise<AttributeDefinitionRow> {
  const found = await store.get_attribute_definition(name);
  if (found === null) throw not_found("attribute", name);
  return found;
}

/** Changes scope, claim or flags; the name and type stay. */
export async function update_attribute(store: Store, name: string, update: AttributeUpdate, now: number): Promise<AttributeDefinitionRow> {
  const current = await show_attribute(store, name);
  const patch: AttributeDefinitionPatch = {};
  if (update.scope !== undefined) {
    const problem = attribute_scope_problem(update.scope);
    if (problem !== null) throw invalid_field("scope", problem);
    patch.scope = update.scope;
  }
  if (update.claim !== undefined) {
    const others = (await store.list_attribute_definitions()).filter((d) => d.name !== current.name);
    check_claim(update.claim, others, "claim");
    patch.claim = update.claim;
  }
  if (update.user_editable !== undefined) patch.user_editable = update.user_editable;
  if (update.required !== undefined) patch.required = update.required;
  const updated = await store.update_attribute_definition(current.name, patch, now);
  if (updated === null) throw not_found("attribute", name);
  return updated;
}

/** Removes the definition and every user's value of it. */
export async function remove_attribute(store: Store, name: string): Promise<void> {
  if (!(await store.delete_attribute_definition(name))) throw not_found("attribute", name);
}
