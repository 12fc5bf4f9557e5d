/**
 * Administering clients: the rules `idp clients` (src/cli/clients.ts) and the admin API
 * (src/http/endpoints/admin/clients/) share. What is shown of a client, how one is created with
 * its secret, how a secret is rotated (with a grace period for the old one), and the admin flag.
 * A client secret is 256-bit random, answered once and stored only as its SHA-256
 * (docs/ARCHITECTURE.md, "Security at rest").
 */
import { random_id, random_token, sha256 } from "../crypto/secrets.ts";
import { split_scope } from "../claims/scopes.ts";
import type { ClientMetadata, ClientRow, Store, TokenExchangePolicy, UnixSeconds } from "../../store/types.ts";
import { GROUP_METADATA, group_settings_problem, type GroupSettings } from "../claims/groups.ts";
import { previous_secret_live } from "../clients/previous_secret.ts";
import { DISPLAY_LINKS, display_link_problem } from "../clients/metadata.ts";
import { SECRET_AUTH_METHODS } from "../clients/method_secret.ts";
import { DEVICE_CODE_GRANT } from "../authorize/device.ts";
import { AdminError, invalid_field, type FieldProblem } from "./errors.ts";
import { ADMIN_SCOPE } from "./scope.ts";

/** Methods whose client holds a shared secret (clients/method_secret.ts: the ones a rotation applies to). */
export { SECRET_AUTH_METHODS };

/** What is shown of a client: its metadata and dates, never a secret or token hash. */
export type PublicClient = ClientMetadata & {
  client_id: string;
  client_id_issued_at: number;
  client_secret_expires_at: number;
  has_secret: boolean;
  resource_server: boolean;
  created_at: number;
  updated_at: number;
};

export function public_client(client: ClientRow): PublicClient {
  return {
    client_id: client.client_id,
    ...client.metadata,
    // Always shown: whether this client may introspect other clients' access tokens.
    resource_server: client.metadata.resource_server === true,
    has_secret: client.client_secret_hash !== null,
    client_id_issued_at: client.client_id_issued_at,
    client_secret_expires_at: client.client_secret_expires_at,
    created_at: client.created_at,
    updated_at: client.updated_at,
  };
}

export function auth_method_of(metadata: ClientMetadata): string {
  return metadata.token_endpoint_auth_method ?? "client_secret_basic";
}

/**
 * Turns the admin flag on or off in `metadata` (changed in place): on, the client may get the
 * `admin` scope from the client_credentials grant (scope.ts), so it must use that grant and
 * authenticate; the scope joins its registered scope. Off, both go.
 */
export function set_admin(metadata: ClientMetadata, on: boolean): void {
  const scopes = split_scope(metadata.scope ?? "").filter((scope) => scope !== ADMIN_SCOPE);
  if (!on) {
    delete metadata.admin;
    if (scopes.length > 0) metadata.scope = scopes.join(" ");
    else delete metadata.scope;
    return;
  }
  if (!(metadata.grant_types ?? []).includes("client_credentials"))
    throw new AdminError("invalid_request", "an admin client needs the client_credentials grant", [{ field: "admin", message: "needs the client_credentials grant" }]);
  if (auth_method_of(metadata) === "none")
    throw new AdminError("invalid_request", "an admin client must authenticate (not token_endpoint_auth_method none)", [
      { field: "admin", message: "needs an authenticating client" },
    ]);
  metadata.admin = true;
  metadata.scope = [...scopes, ADMIN_SCOPE].join(" ");
}

/**
 * Rules an operator's client keeps beyond the registration rules (registration/validate.ts), the
 * same for `idp clients add`, the admin API and the console: refresh tokens are issued only with
 * authorization codes and device authorizations (RFC 6749 §6, RFC 8628 §3.5), so the
 * refresh_token grant alone is a mistake; the consent page shows only https links
 * (clients/metadata.ts `display_link_problem`). The first problem, naming the member; null when none.
 */
export function operator_metadata_problem(metadata: ClientMetadata): FieldProblem | null {
  const grants = metadata.grant_types ?? [];
  if (grants.includes("refresh_token") && !grants.includes("authorization_code") && !grants.includes(DEVICE_CODE_GRANT))
    return { field: "grant_types", message: `refresh_token needs authorization_code or ${DEVICE_CODE_GRANT} too (refresh tokens are issued with those)` };
  for (const field of DISPLAY_LINKS) {
    const value = metadata[field];
    const problem = typeof value === "string" ? display_link_problem(value) : null;
    if (problem !== null) return { field, message: `"${value}" ${problem}` };
  }
  return null;
}

/**
 * When the client was last used, as far as the store knows: the last use of a secret (to the
 * minute, clients/authentication.ts), else its first token (a client without a secret has no
 * other record, store `mark_client_used`); null: never.
 */
export function last_used_at(client: ClientRow): UnixSeconds | null {
  const known = [client.client_secret_used_at, client.previous_secret_used_at, client.first_used_at].filter((at): at is UnixSeconds => at !== null);
  return known.length === 0 ? null : Math.max(...known);
}

/** A new client with checked metadata; the secret (null for a client without one) is answered once. */
export async function create_client_with_secret(store: Store, metadata: ClientMetadata, now: UnixSeconds): Promise<{ client: ClientRow; secret: string | null }> {
  const secret = SECRET_AUTH_METHODS.has(auth_method_of(metadata)) ? random_token(32) : null;
  const client = await store.create_client({
    client_id: random_id(),
    client_secret_hash: secret === null ? null : sha256(secret),
    client_secret_expires_at: 0,
    client_id_issued_at: now,
    client_secret_created_at: secret === null ? null : now,
    metadata,
  });
  return { client, secret };
}

/**
 * How long the old secret may keep working after a rotation: not at all, an hour, a day. Long
 * enough to deploy the new secret; short, because the old one is rotated away for a reason.
 */
export const GRACE_SECONDS = [0, 3600, 86400] as const;
export type GraceSeconds = (typeof GRACE_SECONDS)[number];

/**
 * A new secret. With `grace_seconds` the current secret becomes the previous one and keeps
 * authenticating the client until now + grace (oidc/clients/authentication.ts accepts either), so
 * the application moves to the new one without an outage; without, it stops working at once. A
 * previous secret of an earlier rotation is dropped either way: two secrets at most.
 */
export async function rotate_client_secret(store: Store, client: ClientRow, now: UnixSeconds, grace_seconds: GraceSeconds = 0): Promise<{ client: ClientRow; secret: string }> {
  const method = auth_method_of(client.metadata);
  if (!SECRET_AUTH_METHODS.has(method)) throw new AdminError("conflict", `client "${client.client_id}" authenticates with ${method} and has no secret to rotate`);
  const secret = random_token(32);
  const current_live = client.client_secret_hash !== null && (client.client_secret_expires_at === 0 || client.client_secret_expires_at > now);
  const keep = grace_seconds > 0 && current_live;
  const updated = await store.update_client(client.client_id, {
    client_secret_hash: sha256(secret),
    client_secret_expires_at: 0,
    client_secret_created_at: now,
    client_secret_used_at: null,
    previous_secret_hash: keep ? client.client_secret_hash : null,
    previous_secret_expires_at: keep ? now + grace_seconds : null,
    previous_secret_created_at: keep ? client.client_secret_created_at : null,
    previous_secret_used_at: keep ? client.client_secret_used_at : null,
  });
  if (updated === null) throw new AdminError("not_found", `no client "${client.client_id}"`);
  return { client: updated, secret };
}

/** Ends a rotation's grace period now: the previous secret stops working. Conflict when there is none. */
export async function end_secret_grace(store: Store, client: ClientRow, now: UnixSeconds): Promise<ClientRow> {
  if (previous_secret_live(client, now) === null) throw new AdminError("conflict", `client "${client.client_id}" has no previous secret that still works`);
  const updated = await store.update_client(client.client_id, {
    previous_secret_hash: null,
    previous_secret_expires_at: null,
    previous_secret_created_at: null,
    previous_secret_used_at: null,
  });
  if (updated === null) throw new AdminError("not_found", `no client "${client.client_id}"`);
  return updated;
}

/** When a client's secrets were made and last used, and until when the previous one works (never the secrets). */
export type SecretDates = {
  created_at: UnixSeconds | null;
  last_used_at: UnixSeconds | null;
  previous: { created_at: UnixSeconds | null; last_used_at: UnixSeconds | null; expires_at: UnixSeconds } | null;
};

/** Null for a client without a secret. */
export function secret_dates(client: ClientRow, now: UnixSeconds): SecretDates | null {
  if (client.client_secret_hash === null) return null;
  const previous =
    previous_secret_live(client, now) === null
      ? null
      : { created_at: client.previous_secret_created_at, last_used_at: client.previous_secret_used_at, expires_at: client.previous_secret_expires_at! };
  return { created_at: client.client_secret_created_at, last_used_at: client.client_secret_used_at, previous };
}

/**
 * `metadata` with its group settings (oidc/claims/groups.ts: groups claim, prefix, roles, access policy)
 * replaced by `settings`: checked by the rules of groups.ts, and every group that allowed_groups
 * and roles name must exist (a typo would lock everyone out, or map nobody, without a word);
 * names are stored as the groups spell them.
 */
export async function with_group_settings(store: Store, metadata: ClientMetadata, settings: GroupSettings): Promise<ClientMetadata> {
  const problem = group_settings_problem(settings);
  if (problem !== null) {
    const field = [...GROUP_METADATA].sort((a, b) => b.length - a.length).find((name) => problem.startsWith(name)) ?? "groups";
    throw invalid_field(field, problem.startsWith(field) ? problem.slice(field.length).replace(/^:?\s*/, "") : problem);
  }
  const spelled = async (name: string, field: string) => {
    const group = await store.get_group_by_name(name);
    if (group === null) throw invalid_field(field, `no group "${name}" (create it first)`);
    return group.name;
  };
  const out: ClientMetadata = { ...metadata };
  for (const name of GROUP_METADATA) delete out[name];
  if (settings.groups_claim !== undefined) out.groups_claim = settings.groups_claim;
  if (settings.groups_prefix !== undefined) out.groups_prefix = settings.groups_prefix;
  if (settings.groups_prefix_strip === true) out.groups_prefix_strip = true;
  if (settings.allowed_groups !== undefined) out.allowed_groups = [...new Set(await Promise.all(settings.allowed_groups.map((name) => spelled(name, "allowed_groups"))))];
  if (settings.roles !== undefined) {
    const roles: Record<string, string> = {};
    for (const [name, role] of Object.entries(settings.roles)) roles[await spelled(name, "roles")] = role;
    out.roles = roles;
  }
  return out;
}

export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";

/**
 * A client's RFC 8693 token exchange policy (grants/token_exchange.ts), checked as `idp clients
 * --token-exchange` checks it: the client is registered for the grant and authenticates (it will
 * act as other clients' users), names whose tokens it exchanges and for which registered
 * resources (RFC 8707), and allows impersonation, delegation or both. invalid_request naming
 * `token_exchange` otherwise.
 */
export async function checked_token_exchange(store: Store, metadata: ClientMetadata, policy: TokenExchangePolicy): Promise<TokenExchangePolicy> {
  const refuse = (message: string) => invalid_field("token_exchange", message);
  if (!(metadata.grant_types ?? []).includes(TOKEN_EXCHANGE_GRANT)) throw refuse(`needs the grant ${TOKEN_EXCHANGE_GRANT} in grant_types`);
  if (auth_method_of(metadata) === "none") throw refuse("needs an authenticating client (not token_endpoint_auth_method none)");
  if (!policy.impersonation && !policy.delegation) throw refuse("must allow impersonation, delegation or both");
  if (policy.subject_clients.length === 0) throw refuse("subject_clients must name the clients whose tokens it may exchange (or *)");
  if (policy.resources.length === 0) throw refuse("resources must name at least one registered resource");
  for (const uri of policy.resources) {
    if ((await store.get_resource_server(uri)) === null) throw refuse(`no resource "${uri}" (register it first)`);
  }
  return { subject_clients: [...new Set(policy.subject_clients)], impersonation: policy.impersonation, delegation: policy.delegation, resources: [...new Set(policy.resources)] };
}
