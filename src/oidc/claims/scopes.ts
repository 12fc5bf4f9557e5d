/**
 * Scopes the provider understands and the claims each releases (OIDC Core §5.4), and the
 * checks of a requested `scope` parameter.
 *
 * Policy (RFC 6749 §3.3 leaves it to the server; OIDC Core §3.1.2.1 says scope values "not
 * understood by an implementation SHOULD be ignored"):
 * - A client registered with a `scope` list may request only those: anything else is
 *   `invalid_scope`, never dropped silently.
 * - A client without a `scope` list may request the scopes below, and the scopes of the
 *   registered resources it names with `resource` (RFC 8707 §2, tokens/resources.ts: the consent
 *   page lists them); other values are ignored, and the granted `scope` is returned in the token
 *   response (RFC 6749 §5.1), so the client sees exactly what it got.
 * - A missing or empty scope is `invalid_scope` (RFC 6749 §3.3: "fail the request indicating an
 *   invalid scope").
 */
import type { ClientMetadata } from "../../store/types.ts";
import { ADMIN_CLIENT_SCOPES } from "../admin/scope.ts";

/** OIDC Core §5.4: the claims released by each standard scope. */
export const SCOPE_CLAIMS = {
  openid: ["sub"],
  profile: [
    "name",
    "family_name",
    "given_name",
    "middle_name",
    "nickname",
    "preferred_username",
    "profile",
    "picture",
    "website",
    "gender",
    "birthdate",
    "zoneinfo",
    "locale",
    "updated_at",
  ],
  email: ["email", "email_verified"],
  address: ["address"],
  phone: ["phone_number", "phone_number_verified"],
  // OIDC Core §11: asks for a refresh token; releases no claims.
  offline_access: [],
  // Not a standard scope (OIDC Core §5.4 allows others): the user's groups, and the roles a
  // client maps from them (groups.ts). Their values come from the store, not the user row.
  groups: ["groups", "roles"],
} as const satisfies Record<string, readonly string[]>;

export type KnownScope = keyof typeof SCOPE_CLAIMS;

/**
 * Scopes advertised in discovery. offline_access (OIDC Core §11) asks for a refresh token: one is
 * issued when the client is registered for the refresh_token grant and the user consented to
 * offline_access for it (on the consent page, which lists it; a stored consent covering it
 * counts, as do first-party skip_consent clients); otherwise the scope is ignored. A client not
 * registered for refresh_token has it dropped at /authorize (authorize/request.ts), so its consent
 * page does not list it.
 */
export const ADVERTISED_SCOPES: readonly KnownScope[] = ["openid", "profile", "email", "address", "phone", "offline_access", "groups"];

/** Plain words for the consent page. */
export const SCOPE_DESCRIPTIONS: Record<KnownScope, string> = {
  openid: "Know who you are (your account identifier)",
  profile: "See your basic profile: your name, username and picture",
  email: "See your email address and whether it is verified",
  address: "See your postal address",
  phone: "See your phone number and whether it is verified",
  offline_access: "Stay connected to your account while you are away",
  groups: "See the groups you belong to",
};

export function is_known_scope(scope: string): scope is KnownScope {
  return Object.hasOwn(SCOPE_CLAIMS, scope);
}

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export type ScopeCheck = { ok: true; scopes: string[] } | { ok: false; error: "invalid_scope"; description: string };

/** Splits a scope parameter into distinct values, in request order. */
export function split_scope(scope: string): string[] {
  const parts = scope.split(" ");
  // A Set pays off only for long lists; the usual few values are cheaper to check with includes.
  if (parts.length > 16) return [...new Set(parts.filter((s) => s.length > 0))];
  const out: string[] = [];
  for (const part of parts) if (part.length > 0 && !out.includes(part)) out.push(part);
  return out;
}

/**
 * Checks a requested scope against the client; returns the scopes to grant. `resource_scopes`: the
 * scopes of the resources the request names, which a client without a scope list may ask for.
 */
export function check_scope(requested: string | undefined, client: ClientMetadata, resource_scopes: readonly string[] = []): ScopeCheck {
  if (requested === undefined || requested.trim() === "") {
    return { ok: false, error: "invalid_scope", description: 'scope is required (use at least "openid")' };
  }
  const values = split_scope(requested);
  const bad = values.find((s) => !SCOPE_TOKEN.test(s));
  if (bad !== undefined) return { ok: false, error: "invalid_scope", description: "scope contains characters RFC 6749 §3.3 does not allow" };
  // The admin API's and SCIM's scopes are for operator-flagged clients acting for themselves
  // (admin/scope.ts): never granted through a user's authorization, whatever the client registered.
  const reserved = values.find((s) => ADMIN_CLIENT_SCOPES.includes(s));
  if (reserved !== undefined) return { ok: false, error: "invalid_scope", description: `the ${reserved} scope is only issued by the client_credentials grant` };
  const allowed = typeof client.scope === "string" ? new Set(split_scope(client.scope)) : null;
  if (allowed !== null) {
    const refused = values.filter((s) => !allowed.has(s));
    if (refused.length > 0) {
      return { ok: false, error: "invalid_scope", description: `this client may not request: ${refused.join(" ")}` };
    }
    return { ok: true, scopes: values };
  }
  const granted = values.filter((s) => is_known_scope(s) || resource_scopes.includes(s));
  if (granted.length === 0) return { ok: false, error: "invalid_scope", description: `none of the requested scopes is supported: ${values.join(" ")}` };
  return { ok: true, scopes: granted };
}

/** True when every scope of `wanted` is in `granted`. */
export function covers(granted: readonly string[], wanted: readonly string[]): boolean {
  const set = new Set(granted);
  return wanted.every((s) => set.has(s));
}
