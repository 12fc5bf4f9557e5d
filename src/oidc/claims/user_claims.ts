/**
 * The user claims each scope releases (OIDC Core §5.1, §5.4), read from a user row.
 * A claim is released only when the user has a value for it; `*_verified` only together with
 * the value it qualifies.
 */
import { SCOPE_CLAIMS, is_known_scope } from "./scopes.ts";
import type { JsonValue, UserRow } from "../../store/types.ts";

export type Claims = Record<string, JsonValue>;

/** Claims a user row can carry today, for `claims_supported` in discovery. */
export const USER_CLAIMS = [
  "name",
  "given_name",
  "family_name",
  "preferred_username",
  "picture",
  "updated_at",
  "email",
  "email_verified",
  "address",
  "phone_number",
  "phone_number_verified",
] as const;

/**
 * Every user claim a scope can release (`sub` aside): the only names the `claims` request
 * parameter (OIDC Core §5.5) may ask for, so it never reads row fields that are not claims.
 */
export const RELEASABLE_CLAIMS: ReadonlySet<string> = new Set(
  Object.values(SCOPE_CLAIMS)
    .flat()
    .filter((claim) => claim !== "sub"),
);

/** Where a claim comes from when the user row names it differently. */
function claim_value(user: UserRow, claim: string): JsonValue | undefined {
  switch (claim) {
    case "sub":
      return user.id;
    case "preferred_username":
      return user.username;
    case "email_verified":
      return user.email ? user.email_verified : undefined;
    case "phone_number_verified":
      return user.phone_number ? user.phone_number_verified : undefined;
    case "address":
      return user.address && Object.keys(user.address).length > 0 ? (user.address as JsonValue) : undefined;
    case "groups":
    case "roles":
      // From the store and the client's mapping (groups.ts), never from the row.
      return undefined;
    default: {
      // Profile claims the row may gain later (middle_name, locale, ...) are read by name.
      const value = (user as unknown as Record<string, unknown>)[claim];
      if (typeof value === "string" && value.length > 0) return value;
      if (typeof value === "number" || typeof value === "boolean") return value;
      return undefined;
    }
  }
}

/**
 * The claims of `scopes` (plus `sub`) that the user has, and the individually `requested` ones
 * (OIDC Core §5.5 claims parameter) among RELEASABLE_CLAIMS.
 */
export function claims_for(user: UserRow, scopes: readonly string[], requested: readonly string[] = []): Claims {
  const out: Claims = { sub: user.id };
  const add = (claim: string) => {
    const value = claim_value(user, claim);
    if (value !== undefined) out[claim] = value;
  };
  for (const scope of scopes) {
    if (!is_known_scope(scope)) continue;
    for (const claim of SCOPE_CLAIMS[scope]) if (claim !== "sub") add(claim);
  }
  for (const claim of requested) if (RELEASABLE_CLAIMS.has(claim) && !(claim in out)) add(claim);
  return out;
}
