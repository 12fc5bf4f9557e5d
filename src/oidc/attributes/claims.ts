/**
 * Releasing attributes as claims (OIDC Core §5.1.2 "additional claims"): each attribute under its
 * claim name, when the authorization was granted its scope, or when the `claims` request
 * parameter (§5.5) named its claim (the consent page lists such claims beyond the scopes, and the
 * grant remembers them: claims/request.ts). Read by the ID Token, /userinfo, SAML and LDAP alike.
 */
import type { Claims } from "../claims/user_claims.ts";
import type { AttributeDefinitionRow, JsonValue, Store } from "../../store/types.ts";

/** The definitions, read once per token or answer. */
export type AttributeCatalog = {
  definitions: readonly AttributeDefinitionRow[];
  /** claim name → the scope that releases it. */
  claim_scopes: ReadonlyMap<string, string>;
};

export const EMPTY_CATALOG: AttributeCatalog = { definitions: [], claim_scopes: new Map() };

export async function load_attribute_catalog(store: Pick<Store, "list_attribute_definitions">): Promise<AttributeCatalog> {
  const definitions = await store.list_attribute_definitions();
  return { definitions, claim_scopes: new Map(definitions.map((d) => [d.claim, d.scope])) };
}

/** The scopes of the attributes (for check_scope, which grants them like a resource's). */
export function attribute_scopes(catalog: AttributeCatalog): string[] {
  return [...new Set(catalog.definitions.map((d) => d.scope))];
}

/** The definitions this authorization releases: by scope, or by name in the claims request. */
export function released_definitions(catalog: AttributeCatalog, scopes: readonly string[], requested: readonly string[]): AttributeDefinitionRow[] {
  return catalog.definitions.filter((d) => scopes.includes(d.scope) || requested.includes(d.claim));
}

/** `{ claim: value }` of the released attributes the user has. */
export function map_attribute_claims(definitions: readonly AttributeDefinitionRow[], values: Readonly<Record<string, JsonValue>>): Claims {
  const out: Claims = {};
  for (const definition of definitions) {
    const value = values[definition.name];
    if (value !== undefined && value !== null) out[definition.claim] = value;
  }
  return out;
}

/** The attribute claims of one user for this authorization; no value read when none is released. */
export async function attribute_claims(store: Store, catalog: AttributeCatalog, user_id: string, scopes: readonly string[], requested: readonly string[]): Promise<Claims> {
  const released = released_definitions(catalog, scopes, requested);
  if (released.length === 0) return {};
  const values: Record<string, JsonValue> = {};
  for (const row of await store.list_user_attribute_values([user_id])) values[row.name] = row.value;
  return map_attribute_claims(released, values);
}

/**
 * Every attribute claim of each user, whatever the scope: for SAML assertions and LDAP entries,
 * which have no scopes (saml/attributes.ts, ldap/entries.ts). Users without values are absent.
 */
export async function attribute_claims_of_users(store: Store, user_ids: readonly string[]): Promise<Map<string, Claims>> {
  const out = new Map<string, Claims>();
  if (user_ids.length === 0) return out;
  const catalog = await load_attribute_catalog(store);
  if (catalog.definitions.length === 0) return out;
  const by_user = new Map<string, Record<string, JsonValue>>();
  for (const row of await store.list_user_attribute_values(user_ids)) {
    const values = by_user.get(row.user_id) ?? {};
    values[row.name] = row.value;
    by_user.set(row.user_id, values);
  }
  for (const [user_id, values] of by_user) out.set(user_id, map_attribute_claims(catalog.definitions, values));
  return out;
}
