/**
 * The client credentials grant (RFC 6749 §4.4): a confidential client gets an access token for
 * itself — no user, so no ID Token and no refresh token (§4.4.3: "A refresh token SHOULD NOT be
 * included").
 *
 * Scope: only values of the client's registered `scope`, never openid or offline_access (they
 * are about a user). Without a `scope` parameter the client gets its registered scope (RFC 6749
 * §3.3 allows a pre-defined default); a client with none registered gets a token without scope.
 * `admin` and `scim` only for a client flagged admin (admin/scope.ts), even when registered.
 */
import { ADMIN_CLIENT_SCOPES, is_admin_client } from "../admin/scope.ts";
import { is_public } from "../clients/metadata.ts";
import { grant_id } from "../crypto/secrets.ts";
import { OAuthError } from "../errors.ts";
import { registered_resource, resource_scopes } from "../tokens/resources.ts";
import { split_scope } from "../claims/scopes.ts";
import { issue_access_token } from "../tokens/access_and_refresh.ts";
import type { GrantContext, TokenResponse } from "./types.ts";
import { token_type } from "../tokens/dpop.ts";

const USER_SCOPES = new Set(["openid", "offline_access"]);

/** RFC 6749 §3.3 scope-token: printable ASCII without space, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** `admin`: whether the client is flagged admin; only then may its registered scope grant `admin` or `scim` (admin/scope.ts). */
export function client_credentials_scope(registered: string | undefined, requested: string | undefined, admin = false): string[] {
  const allowed = split_scope(registered ?? "").filter((scope) => !USER_SCOPES.has(scope) && (admin || !ADMIN_CLIENT_SCOPES.includes(scope)));
  if (requested === undefined) return allowed;
  const wanted = split_scope(requested);
  if (wanted.some((scope) => !SCOPE_TOKEN.test(scope))) throw new OAuthError("invalid_scope", "scope contains characters RFC 6749 §3.3 does not allow");
  const user = wanted.filter((scope) => USER_SCOPES.has(scope));
  if (user.length > 0) throw new OAuthError("invalid_scope", `${user.join(" ")} needs a user; client_credentials has none`);
  const refused = wanted.filter((scope) => !allowed.includes(scope));
  if (refused.length > 0) throw new OAuthError("invalid_scope", `this client may not request: ${refused.join(" ")}`);
  return wanted;
}

export async function client_credentials_grant(ctx: GrantContext): Promise<TokenResponse> {
  const { idp, client, params, now } = ctx;
  // RFC 6749 §4.4: "The client credentials grant type MUST only be used by confidential clients."
  if (is_public(client)) throw new OAuthError("unauthorized_client", "a public client cannot use the client_credentials grant");
  const scopes = client_credentials_scope(client.metadata.scope, params.scope, is_admin_client(client.metadata));
  // RFC 8707 §2: a registered resource makes the token audience-restricted to it, with the
  // client's scopes the resource accepts (resources.ts).
  const resource = params.resource === undefined ? null : await registered_resource(idp, params.resource);
  const scope = (resource === null ? scopes : resource_scopes(resource, scopes)).join(" ");
  const access = await issue_access_token(
    idp,
    client,
    {
      client_id: client.client_id,
      user_id: null,
      scope,
      grant_id: grant_id(),
      family_id: null,
      session_id_hash: null,
      auth_time: null,
      acr: null,
      amr: [],
      nonce: null,
      claims: null,
      jkt: ctx.dpop_jkt,
    },
    now,
    resource,
  );
  const body: TokenResponse = { access_token: access.token, token_type: token_type(ctx.dpop_jkt), expires_in: access.expires_in };
  if (scope !== "") body.scope = scope;
  return body;
}
