/**
 * The `admin` scope: an access token with it may call the admin API. Only a client an operator
 * flagged (`idp clients add|update --admin`, metadata `admin: true`, never registrable) gets it,
 * and only from the client_credentials grant (grants/client_credentials.ts); the authorization
 * endpoint refuses it for everyone (scopes.ts check_scope), so no user's consent can hand it out.
 */
import type { ClientMetadata } from "../../store/types.ts";

export const ADMIN_SCOPE = "admin";

/**
 * The `scim` scope: an access token with it may call the SCIM 2.0 provisioning endpoints
 * (oidc/scim/) and nothing else. Granted by the same rules as `admin` (an admin-flagged client,
 * client_credentials only) but apart from it, so a provisioning service (Entra ID, Okta) holds a
 * token that cannot change clients, keys or settings.
 */
export const SCIM_SCOPE = "scim";

/** The scopes only an admin-flagged client gets, and only from client_credentials. */
export const ADMIN_CLIENT_SCOPES: readonly string[] = [ADMIN_SCOPE, SCIM_SCOPE];

export function is_admin_client(metadata: ClientMetadata): boolean {
  return metadata.admin === true;
}
