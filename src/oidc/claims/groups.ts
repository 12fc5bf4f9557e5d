/**
 * Groups in tokens and the per-client access policy.
 *
 * Claims: the scope `groups` (or the claims request parameter, OIDC Core §5.5, naming `groups`
 * or `roles`) releases the user's groups in the ID Token, at /userinfo and in introspection
 * (RFC 7662 §2.2 allows extra members). Each client can shape them with operator-set metadata
 * (never registrable: registration/schema.ts does not know these members, so RFC 7591 §2 has
 * them ignored, and a registration update keeps the operator's values):
 * - `groups_claim`: the claim's name (default `groups`), e.g. for a relying party that reads
 *   another name. Registered claim names (`sub`, `iss`, `email`…) are refused.
 * - `groups_prefix`: release only the groups whose name starts with it (case-insensitively, as
 *   group names are); `groups_prefix_strip: true` removes it from the released names.
 * - `roles`: a map from group name to a role value; the values of the user's groups are
 *   released, each once, as a `roles` array, with the same scope as the groups (roles come from
 *   groups: one scope, one consent). The prefix filter does not apply to it.
 * - `allowed_groups`: the access policy. A user in none of them gets `access_denied` at
 *   /authorize (OIDC Core §3.1.2.6, by redirect to the verified redirect URI, as Keycloak and
 *   Authelia do) and `invalid_grant` at the next refresh (RFC 6749 §5.2), which also revokes the
 *   token family: removing a user from a group ends their access at the next refresh.
 *
 * The rules here are shared by the CLI (`idp clients add|update`) and any later admin surface.
 */
import { record_event } from "../audit.ts";
import { RELEASABLE_CLAIMS, type Claims } from "./user_claims.ts";
import type { Provider } from "../provider.ts";
import { GROUP_NAME_RULE, group_name_key, group_name_problem } from "../../store/group_names.ts";
import type { ClientMetadata, ClientRow } from "../../store/types.ts";

/** The scope that releases groups (and roles). */
export const GROUPS_SCOPE = "groups";
export const DEFAULT_GROUPS_CLAIM = "groups";
export const ROLES_CLAIM = "roles";

/** The operator-set client metadata members of this file. */
export const GROUP_METADATA = ["groups_claim", "groups_prefix", "groups_prefix_strip", "roles", "allowed_groups"] as const;
export type GroupMetadataName = (typeof GROUP_METADATA)[number];

export type GroupSettings = {
  groups_claim?: string;
  groups_prefix?: string;
  groups_prefix_strip?: boolean;
  roles?: Record<string, string>;
  allowed_groups?: string[];
};

/**
 * Claim names a renamed groups claim may not take: JWT (RFC 7519 §4.1), ID Token (OIDC Core §2),
 * logout and session (Back-Channel Logout §2.4), introspection members (RFC 7662 §2.2) and every
 * user claim this provider releases. Taking one would overwrite or shadow it.
 */
export const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  "iss",
  "sub",
  "aud",
  "exp",
  "nbf",
  "iat",
  "jti",
  "auth_time",
  "nonce",
  "acr",
  "amr",
  "azp",
  "at_hash",
  "c_hash",
  "s_hash",
  "sid",
  "events",
  "cnf",
  "scope",
  "client_id",
  "active",
  "token_type",
  "username",
  "_claim_names",
  "_claim_sources",
  ...[...RELEASABLE_CLAIMS].filter((claim) => claim !== DEFAULT_GROUPS_CLAIM && claim !== ROLES_CLAIM),
]);

export const CLAIM_NAME = /^[A-Za-z0-9_.:/-]{1,128}$/;
export const CLAIM_NAME_RULE = "1 to 128 ASCII letters, digits or _ . : / -";
const ROLE_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]{0,62}[\x21-\x7e])?$/;
const MAX_LIST = 100;

/** Why `settings` cannot be stored, naming the member; null when they are fine. */
export function group_settings_problem(settings: GroupSettings): string | null {
  const { groups_claim, groups_prefix, groups_prefix_strip, roles, allowed_groups } = settings;
  if (groups_claim !== undefined) {
    if (typeof groups_claim !== "string" || !CLAIM_NAME.test(groups_claim)) return `groups_claim "${String(groups_claim)}" is not valid: use ${CLAIM_NAME_RULE}`;
    if (RESERVED_CLAIMS.has(groups_claim)) return `groups_claim "${groups_claim}" is a registered claim name; choose another (e.g. groups)`;
    if (groups_claim === ROLES_CLAIM && roles !== undefined) return `groups_claim "roles" would collide with the roles claim this client releases from its roles map`;
  }
  if (groups_prefix !== undefined && (typeof groups_prefix !== "string" || group_name_problem(groups_prefix) !== null)) {
    return `groups_prefix "${String(groups_prefix)}" is not valid: use ${GROUP_NAME_RULE}`;
  }
  if (groups_prefix_strip !== undefined) {
    if (typeof groups_prefix_strip !== "boolean") return "groups_prefix_strip must be true or false";
    if (groups_prefix_strip && groups_prefix === undefined) return "groups_prefix_strip needs groups_prefix";
  }
  if (roles !== undefined) {
    if (roles === null || typeof roles !== "object" || Array.isArray(roles)) return "roles must map group names to role values";
    const entries = Object.entries(roles);
    if (entries.length === 0 || entries.length > MAX_LIST) return `roles must map 1 to ${MAX_LIST} groups`;
    for (const [group, role] of entries) {
      const problem = group_name_problem(group);
      if (problem !== null) return `roles: ${problem}`;
      if (typeof role !== "string" || !ROLE_VALUE.test(role))
        return `roles: the role of group "${group}" must be 1 to 64 printable ASCII characters without leading or trailing spaces`;
    }
    const keys = entries.map(([group]) => group_name_key(group));
    if (new Set(keys).size !== keys.length) return "roles: a group is mapped twice (group names are case-insensitive)";
  }
  if (allowed_groups !== undefined) {
    if (!Array.isArray(allowed_groups) || allowed_groups.length === 0 || allowed_groups.length > MAX_LIST) return `allowed_groups must list 1 to ${MAX_LIST} groups`;
    for (const group of allowed_groups) {
      const problem = typeof group === "string" ? group_name_problem(group) : "a group name must be a string";
      if (problem !== null) return `allowed_groups: ${problem}`;
    }
  }
  return null;
}

/** The group members of client metadata, as stored. */
export function group_settings(metadata: ClientMetadata): GroupSettings {
  const out: GroupSettings = {};
  for (const name of GROUP_METADATA) if (metadata[name] !== undefined) (out as Record<string, unknown>)[name] = metadata[name];
  return out;
}

/** The name the groups claim is released under; the default when the stored one is not usable. */
export function groups_claim_name(metadata: ClientMetadata): string {
  const name = metadata.groups_claim;
  return typeof name === "string" && CLAIM_NAME.test(name) && !RESERVED_CLAIMS.has(name) ? name : DEFAULT_GROUPS_CLAIM;
}

/** Whether the authorization releases groups: the scope, or a claims request naming them (§5.5). */
export function wants_groups(scopes: readonly string[], requested: readonly string[] = []): boolean {
  return scopes.includes(GROUPS_SCOPE) || requested.includes(DEFAULT_GROUPS_CLAIM) || requested.includes(ROLES_CLAIM);
}

/** The group claims of one client for a user in `groups` (see the mapping rules above). */
export function map_group_claims(metadata: ClientMetadata, groups: readonly string[]): Claims {
  let released = [...groups];
  const prefix = metadata.groups_prefix;
  if (typeof prefix === "string" && prefix !== "") {
    const key = group_name_key(prefix);
    released = released.filter((group) => group_name_key(group).startsWith(key));
    if (metadata.groups_prefix_strip === true) released = released.map((group) => group.slice(prefix.length)).filter((group) => group !== "");
  }
  const claims: Claims = { [groups_claim_name(metadata)]: released };
  const roles = metadata.roles;
  if (roles !== null && typeof roles === "object" && !Array.isArray(roles)) {
    const by_key = new Map(Object.entries(roles as Record<string, unknown>).map(([group, role]) => [group_name_key(group), role]));
    const values: string[] = [];
    for (const group of groups) {
      const role = by_key.get(group_name_key(group));
      if (typeof role === "string" && !values.includes(role)) values.push(role);
    }
    // A groups claim renamed to "roles" yields to the roles map (refused at configuration anyway).
    claims[ROLES_CLAIM] = values;
  }
  return claims;
}

/**
 * The group claims to release for this authorization; nothing when neither the scope nor the
 * claims request asks for them. `known` spares the lookup when the caller read the groups already.
 */
export async function group_claims(
  idp: Provider,
  client: ClientRow,
  user_id: string,
  scopes: readonly string[],
  requested: readonly string[],
  known?: readonly string[] | null,
): Promise<Claims> {
  if (!wants_groups(scopes, requested)) return {};
  return map_group_claims(client.metadata, known ?? (await idp.store.list_user_groups(user_id)));
}

/** Whether the client restricts access to members of some groups. */
export function restricts_access(client: ClientRow): boolean {
  const allowed = client.metadata.allowed_groups;
  return Array.isArray(allowed) && allowed.length > 0;
}

/** Whether a user in `groups` may use the client (always, when it sets no allowed_groups). */
export function allowed_by_groups(client: ClientRow, groups: readonly string[]): boolean {
  if (!restricts_access(client)) return true;
  const allowed = new Set((client.metadata.allowed_groups as unknown[]).filter((g): g is string => typeof g === "string").map(group_name_key));
  return groups.some((group) => allowed.has(group_name_key(group)));
}

export const ACCESS_DENIED_DESCRIPTION = "your account is not in a group allowed to use this application";

export type AccessCheck = { allowed: true; groups: readonly string[] | null } | { allowed: false };

/**
 * The access policy for a user of a client: the groups read (one query) when the client
 * restricts access, so the caller can reuse them for the claims. A refusal is audited.
 */
export async function check_group_access(idp: Provider, client: ClientRow, user_id: string, context: { stage: "authorize" | "refresh"; ip?: string | null }): Promise<AccessCheck> {
  if (!restricts_access(client)) return { allowed: true, groups: null };
  const groups = await idp.store.list_user_groups(user_id);
  if (allowed_by_groups(client, groups)) return { allowed: true, groups };
  await record_event(idp, {
    type: "access_denied",
    outcome: "failure",
    user_id,
    client_id: client.client_id,
    ip: context.ip ?? null,
    details: { reason: "groups", stage: context.stage },
  });
  return { allowed: false };
}
