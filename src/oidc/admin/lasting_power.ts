/**
 * What a token of the admin API may not do. An admin token is short-lived and can leak (a log,
 * a proxy, a compromised automation host); it must not turn itself into lasting admin power.
 * So through the API:
 *
 * - the credentials of an admin-flagged client do not change: no secret rotation, no change of
 *   its authentication method or keys (CLIENT_CREDENTIAL_METADATA). The flag itself the API may
 *   keep or remove but never grant (clients.ts `set_admin`, enforced by the endpoints);
 * - membership of the console's admin group (IDP_ADMIN_GROUP) and of its delegated roles'
 *   groups (IDP_AUDITOR_GROUP, IDP_HELPDESK_GROUP) does not change, and the admin group is not
 *   deleted;
 * - the ways into an admin-group member's account do not change: their e-mail address (where a
 *   reset link goes) and their second factors.
 *
 * These stay with an operator on the host (`idp clients|groups|users`) and with a human admin in
 * the console, who confirms with their password (console.ts `reauthentication_problem`; for an
 * admin client's credentials on its application page, `admin_credentials_changed`). The
 * refusal is `forbidden` (403 problem) and says where the change can be made. The configured
 * admin group is never deleted, by anyone: the console would lock everybody out.
 */
import type { ClientMetadata, ClientRow, GroupRow } from "../../store/types.ts";
import type { Provider } from "../provider.ts";
import { in_admin_group } from "./console.ts";
import { AdminError } from "./errors.ts";
import { role_of_group } from "./roles.ts";

/** Client metadata that says how a client proves who it is (RFC 7591 §2). */
export const CLIENT_CREDENTIAL_METADATA = ["token_endpoint_auth_method", "token_endpoint_auth_signing_alg", "jwks", "jwks_uri"] as const;

/** User members whose change redirects the way back into an account (a reset link goes to `email`). */
export const USER_RECOVERY_MEMBERS = ["email", "email_verified"] as const;

const ELSEWHERE = "use `idp` on the server, or the admin console";

/** Is `name` the console's admin group (roles.ts: names compare as the store does)? */
export function is_admin_group(idp: Pick<Provider, "config">, name: string): boolean {
  return role_of_group(idp, name) === "admin";
}

/** Refuses, through the API, a new secret for an admin-flagged client or a change of its credentials. */
export function check_admin_client_change(client: ClientRow, change: "secret" | Partial<ClientMetadata> | Record<string, unknown>): void {
  if (client.metadata.admin !== true) return;
  const touched =
    change === "secret"
      ? ["client_secret"]
      : CLIENT_CREDENTIAL_METADATA.filter(
          (name) => Object.hasOwn(change, name) && JSON.stringify((change as Record<string, unknown>)[name]) !== JSON.stringify(client.metadata[name]),
        );
  if (touched.length === 0) return;
  throw new AdminError("forbidden", `the credentials of an admin client (${touched.join(", ")}) do not change through the admin API: ${ELSEWHERE}`);
}

/**
 * The credentials (CLIENT_CREDENTIAL_METADATA) of an admin-flagged client that differ in `after`,
 * its whole metadata after a change; none for a client without the flag. The console asks for
 * the administrator's password before such a change (http/endpoints/admin_console/client_settings.ts).
 */
export function admin_credentials_changed(client: ClientRow, after: ClientMetadata): string[] {
  if (client.metadata.admin !== true) return [];
  // RFC 7591 §2: an absent method is client_secret_basic.
  const value = (metadata: ClientMetadata, name: (typeof CLIENT_CREDENTIAL_METADATA)[number]) =>
    name === "token_endpoint_auth_method" ? (metadata[name] ?? "client_secret_basic") : metadata[name];
  return CLIENT_CREDENTIAL_METADATA.filter((name) => JSON.stringify(value(after, name)) !== JSON.stringify(value(client.metadata, name)));
}

/** Refuses, through the API, adding to or removing from the admin group. */
export function check_admin_group_membership(idp: Pick<Provider, "config">, group: GroupRow): void {
  // The console's delegated roles (roles.ts) are lasting power too: a helpdesk member resets other users' second factors.
  const role = role_of_group(idp, group.name);
  if (role !== null) throw new AdminError("forbidden", `membership of the ${role} group "${group.name}" does not change through the admin API: ${ELSEWHERE}`);
}

/** Refuses deleting the configured admin group, by anyone (API, console, CLI). */
export function check_group_deletion(idp: Pick<Provider, "config">, group: GroupRow): void {
  if (is_admin_group(idp, group.name)) throw new AdminError("conflict", `"${group.name}" is the admin group (IDP_ADMIN_GROUP) and cannot be deleted while it is configured`);
}

/** Refuses, through the API, a change of an admin-group member's e-mail or second factors. */
export async function check_admin_member_recovery(idp: Provider, user_id: string, change: "second_factors" | Record<string, unknown>): Promise<void> {
  const touched = change === "second_factors" ? ["second factors"] : USER_RECOVERY_MEMBERS.filter((name) => Object.hasOwn(change, name));
  if (touched.length === 0 || !(await in_admin_group(idp, user_id))) return;
  throw new AdminError("forbidden", `the ${touched.join(", ")} of a member of the admin group do not change through the admin API: ${ELSEWHERE}`);
}
