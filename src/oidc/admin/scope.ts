/**
 * The `admin` scope: an access token with it may call the admin API. Only a client an operator
 * flagged (`idp clients add|update --admin`, metadata `admin: true`, never registrable) gets it,
 * and only from the client_credentials grant (grants/client_credentials.ts); the authorization
 * endpoint refuses it for everyone (scopes.ts check_scope), so no user's consent can hand it out.
 */
import type { ClientMetadata } from "../../store/types.ts";

export const ADMIN_SCOPE = "admin";

export function is_admin_client(metadata: ClientMetadata): boolean {
  return metadata.admin === true;
}
