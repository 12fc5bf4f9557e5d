/**
 * Who calls the admin API: the client of an access token granted the `admin` scope (scope.ts),
 * sent as Bearer (RFC 6750 §2.1) or, when the token is DPoP-bound, as `DPoP` with a proof of its
 * key (RFC 9449 §7.1). Checked on every call like /userinfo checks its tokens (a lookup of the
 * hashed token, so a revocation works at once; the same binding rule, so a stolen DPoP-bound
 * token is useless without the key), and the client must still exist and still be flagged
 * admin: removing the flag ends its tokens' power without waiting for them to expire.
 *
 * Reading the Authorization and DPoP headers and verifying the proof is the HTTP side's work
 * (http/middleware/admin_api.ts); the rules here get the token and the verified proof.
 */
import { check_token_binding, dpop_challenge, type VerifiedProof } from "../tokens/dpop.ts";
import { BearerError } from "../errors.ts";
import type { Provider } from "../provider.ts";
import { split_scope } from "../claims/scopes.ts";
import { find_access_token } from "../tokens/access_and_refresh.ts";
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
    dpop: { algs: readonly string[]; nonce?: string } | null = null,
  ) {
    super(code, description, realm, dpop);
    this.name = "AdminTokenRefused";
  }
}

/** The credentials of an admin API call: the access token, and the verified DPoP proof when it came with the DPoP scheme. */
export type AdminCredentials = { token: string; proof: VerifiedProof | null };

/** `scope`: the scope the call needs, `admin` for the admin API, `scim` for SCIM provisioning (scope.ts). */
export async function admin_actor(idp: Provider, credentials: AdminCredentials | null, scope: string = ADMIN_SCOPE): Promise<AdminActor> {
  const realm = idp.config.issuer;
  // RFC 6750 §3.1: no credentials, a challenge without an error code.
  if (credentials === null) throw new BearerError(null, `an access token with the ${scope} scope is required`, realm);
  const found = await find_access_token(idp, credentials.token);
  if (!found.ok)
    throw new BearerError(
      "invalid_token",
      `the access token is ${found.reason === "unknown" ? "invalid" : found.reason}`,
      realm,
      credentials.proof === null ? null : dpop_challenge(),
    );
  try {
    // RFC 9449 §7.1, §7.2: a DPoP-bound token only with a proof of its key, a bearer token only as Bearer.
    check_token_binding(found.token.jkt, credentials.proof, realm);
  } catch (error) {
    // A known client's token used without its key (stolen?): audited with that client.
    if (error instanceof BearerError) throw new AdminTokenRefused("invalid_token", error.message, realm, found.token.client_id, error.dpop);
    throw error;
  }
  if (!split_scope(found.token.scope).includes(scope)) {
    throw new AdminTokenRefused("insufficient_scope", `the access token was not granted the ${scope} scope`, realm, found.token.client_id);
  }
  const client = await idp.store.get_client(found.token.client_id);
  if (client === null || !is_admin_client(client.metadata) || found.token.user_id !== null) {
    throw new AdminTokenRefused("invalid_token", "the client of this access token may no longer administer the provider", realm, found.token.client_id);
  }
  return { client_id: client.client_id, client_name: client.metadata.client_name ?? null };
}
