/**
 * Who calls the admin API: the client of a Bearer access token (RFC 6750 §2.1) granted the
 * `admin` scope (scope.ts). Checked on every call like /userinfo checks its tokens (a lookup of
 * the hashed token, so a revocation works at once), and the client must still exist and still be
 * flagged admin: removing the flag ends its tokens' power without waiting for them to expire.
 */
import { bearer_credentials } from "../bearer.ts";
import { BearerError } from "../errors.ts";
import type { Provider } from "../provider.ts";
import { split_scope } from "../scopes.ts";
import { find_access_token } from "../tokens.ts";
import { ADMIN_SCOPE, is_admin_client } from "./scope.ts";

export type AdminActor = { client_id: string; client_name: string | null };

/**
 * A real token of a known client, refused (no admin scope, or the client is no longer flagged):
 * the audit log records the attempt with that client. Unknown or missing tokens are not
 * recorded: they name nobody, and anyone could fill the log with them.
 */
export class AdminTokenRefused extends BearerError {
  constructor(
    code: "invalid_token" | "insufficient_scope",
    description: string,
    realm: string,
    readonly client_id: string,
  ) {
    super(code, description, realm);
    this.name = "AdminTokenRefused";
  }
}

export async function admin_actor(idp: Provider, authorization: string | null): Promise<AdminActor> {
  const realm = idp.config.issuer;
  const token = bearer_credentials(authorization, realm);
  // RFC 6750 §3.1: no credentials, a challenge without an error code.
  if (token === null) throw new BearerError(null, "an access token with the admin scope is required", realm);
  const found = await find_access_token(idp, token);
  if (!found.ok) throw new BearerError("invalid_token", `the access token is ${found.reason === "unknown" ? "invalid" : found.reason}`, realm);
  if (!split_scope(found.token.scope).includes(ADMIN_SCOPE)) {
    throw new AdminTokenRefused("insufficient_scope", `the access token was not granted the ${ADMIN_SCOPE} scope`, realm, found.token.client_id);
  }
  const client = await idp.store.get_client(found.token.client_id);
  if (client === null || !is_admin_client(client.metadata) || found.token.user_id !== null) {
    throw new AdminTokenRefused("invalid_token", "the client of this access token may no longer administer the provider", realm, found.token.client_id);
  }
  return { client_id: client.client_id, client_name: client.metadata.client_name ?? null };
}
