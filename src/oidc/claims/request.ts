/**
 * The `claims` request parameter (OIDC Core §5.5): individual claims a client asks for, for the
 * ID Token and/or the UserInfo response, each `null` (voluntary) or `{essential, value, values}`.
 *
 * Policy:
 * - Only the user claims of the standard scopes (RELEASABLE_CLAIMS) and the claims of the
 *   operator's attributes (`attribute_claims`, attributes/claims.ts) can be requested; any other
 *   name is ignored, so the parameter never reaches fields of the user row that are not claims.
 * - A requested claim is released when the user has a value, essential or voluntary, even when
 *   no granted scope covers it. Claims beyond the scopes need the user's consent: the consent
 *   page lists them and the grant remembers them (`{approved: [...]}` in grants.claims).
 * - An essential claim the user lacks is not an error (OIDC Core §5.5.1: the authorization
 *   "SHOULD NOT fail").
 * - `id_token.sub.value` names the user the client expects, like id_token_hint (§5.5.1).
 */
import { RELEASABLE_CLAIMS } from "./user_claims.ts";
import { AuthorizationError } from "../errors.ts";
import { SCOPE_CLAIMS, is_known_scope } from "./scopes.ts";
import type { JsonObject, JsonValue } from "../../store/types.ts";

/** One requested claim: null, or the members §5.5.1 defines (others are dropped). */
export type ClaimEntry = { essential?: boolean; value?: JsonValue; values?: JsonValue[] } | null;

/** OIDC Core §5.5: the two targets of a claims request. */
export type ClaimsTarget = "id_token" | "userinfo";

export type ClaimsRequest = { [T in ClaimsTarget]?: Record<string, ClaimEntry> };

/** Bounds that keep a hostile parameter cheap to handle and to store. */
const MAX_LENGTH = 4096;
const MAX_CLAIMS = 50;

function bad(description: string): AuthorizationError {
  return new AuthorizationError("invalid_request", `claims: ${description}`);
}

function is_object(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function entry(name: string, value: unknown): ClaimEntry {
  if (value === null) return null;
  if (!is_object(value)) throw bad(`${name} must be null or an object`);
  const out: NonNullable<ClaimEntry> = {};
  if (value.essential !== undefined) {
    if (typeof value.essential !== "boolean") throw bad(`${name}.essential must be true or false`);
    out.essential = value.essential;
  }
  if (value.value !== undefined) out.value = value.value as JsonValue;
  if (value.values !== undefined) {
    if (!Array.isArray(value.values)) throw bad(`${name}.values must be an array`);
    out.values = value.values as JsonValue[];
  }
  return out;
}

/** Parses the parameter (a JSON object, §5.5); invalid_request when it is malformed. */
export function parse_claims_request(raw: string): ClaimsRequest {
  if (raw.length > MAX_LENGTH) throw bad(`longer than ${MAX_LENGTH} characters`);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw bad("not valid JSON");
  }
  if (!is_object(json)) throw bad("must be a JSON object");
  const out: ClaimsRequest = {};
  let count = 0;
  for (const target of ["id_token", "userinfo"] as const) {
    const members = json[target];
    if (members === undefined) continue;
    if (!is_object(members)) throw bad(`${target} must be an object`);
    const claims: Record<string, ClaimEntry> = {};
    for (const [name, value] of Object.entries(members)) {
      if (++count > MAX_CLAIMS) throw bad(`more than ${MAX_CLAIMS} claims`);
      claims[name] = entry(`${target}.${name}`, value);
    }
    out[target] = claims;
  }
  return out;
}

/** Claim name → the scope releasing it, of the operator's attributes (attributes/claims.ts). */
export type AttributeClaimScopes = ReadonlyMap<string, string>;
const NO_ATTRIBUTES: AttributeClaimScopes = new Map();

/** The releasable user claims requested for `target` (a stored claims request, or null). */
export function requested_claims(claims: ClaimsRequest | JsonObject | null | undefined, target: ClaimsTarget, attribute_claims: AttributeClaimScopes = NO_ATTRIBUTES): string[] {
  const members = claims?.[target];
  if (!is_object(members)) return [];
  return Object.keys(members).filter((name) => RELEASABLE_CLAIMS.has(name) || attribute_claims.has(name));
}

/** §5.5.1: a `value` for sub in id_token names the only user the client accepts. */
export function expected_sub(claims: ClaimsRequest | null): string | null {
  const sub = claims?.id_token?.sub;
  return typeof sub?.value === "string" ? sub.value : null;
}

/** Requested claims no granted scope releases: these need the user's consent. */
export function claims_beyond_scopes(claims: ClaimsRequest | null, scopes: readonly string[], attribute_claims: AttributeClaimScopes = NO_ATTRIBUTES): string[] {
  const covered = new Set<string>(scopes.filter(is_known_scope).flatMap((scope) => SCOPE_CLAIMS[scope]));
  for (const [claim, scope] of attribute_claims) if (scopes.includes(scope)) covered.add(claim);
  const names = new Set([...requested_claims(claims, "id_token", attribute_claims), ...requested_claims(claims, "userinfo", attribute_claims)]);
  return [...names].filter((name) => !covered.has(name));
}

/** Whether any target marks the claim essential. */
export function is_essential(claims: ClaimsRequest | null, name: string): boolean {
  return claims?.id_token?.[name]?.essential === true || claims?.userinfo?.[name]?.essential === true;
}

/** The claim names a grant's `claims` JSON records as approved. */
export function approved_claims(grant_claims: JsonObject | null | undefined): string[] {
  const approved = grant_claims?.approved;
  return Array.isArray(approved) ? approved.filter((name): name is string => typeof name === "string") : [];
}

/** Plain words for the consent page, one per releasable claim. */
export const CLAIM_DESCRIPTIONS: Record<string, string> = {
  name: "Your full name",
  given_name: "Your first name",
  family_name: "Your last name",
  middle_name: "Your middle name",
  nickname: "Your nickname",
  preferred_username: "Your username",
  profile: "The address of your profile page",
  picture: "Your profile picture",
  website: "Your website",
  gender: "Your gender",
  birthdate: "Your date of birth",
  zoneinfo: "Your time zone",
  locale: "Your language and region",
  updated_at: "When your profile was last updated",
  email: "Your email address",
  email_verified: "Whether your email address is verified",
  address: "Your postal address",
  phone_number: "Your phone number",
  phone_number_verified: "Whether your phone number is verified",
  groups: "The groups you belong to",
  roles: "Your roles in the application, from your groups",
};

/** "Your email address (required by the application)", for each claim beyond the scopes. */
export function describe_claims(claims: ClaimsRequest | null, names: readonly string[]): string[] {
  return names.map((name) => {
    const words = CLAIM_DESCRIPTIONS[name] ?? `The detail “${name}”`;
    return is_essential(claims, name) ? `${words} (required by the application)` : words;
  });
}
