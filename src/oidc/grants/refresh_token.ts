/**
 * The refresh token grant (RFC 6749 §6, OIDC Core §12), with rotation on every use and replay
 * detection (RFC 9700 §4.14.2): each refresh spends the token and issues its successor in the
 * same family; a spent token presented again means one of two parties holding it is not the
 * client, so the whole family — access tokens included — is revoked.
 */
import { record_event } from "../audit.ts";
import { OAuthError } from "../errors.ts";
import { ACCESS_DENIED_DESCRIPTION, check_group_access } from "../claims/groups.ts";
import { sign_id_token } from "../tokens/id_token.ts";
import { narrow_resource, resource_scopes } from "../tokens/resources.ts";
import { split_scope } from "../claims/scopes.ts";
import { is_active_user } from "../accounts/account_status.ts";
import type { TokenRow } from "../../store/types.ts";
import { issue_access_token, issue_refresh_token, revoke_token, token_hash, type TokenBinding } from "../tokens/access_and_refresh.ts";
import type { GrantContext, TokenResponse } from "./types.ts";
import { token_type } from "../tokens/dpop.ts";

/**
 * RFC 6749 §6: the requested scope "MUST NOT include any scope not originally granted", and when
 * omitted is "treated as equal to the scope originally granted". Anything broader is invalid_scope.
 */
export function narrow_scope(granted: string, requested: string | undefined): string[] {
  const original = split_scope(granted);
  if (requested === undefined) return original;
  const wanted = split_scope(requested);
  if (wanted.length === 0) throw new OAuthError("invalid_scope", "scope is empty; omit it to keep the scope originally granted");
  const extra = wanted.filter((scope) => !original.includes(scope));
  if (extra.length > 0) throw new OAuthError("invalid_scope", `scope was not originally granted: ${extra.join(" ")}`);
  return original.filter((scope) => wanted.includes(scope));
}

/** RFC 9700 §4.14.2: a rotated refresh token came back. Revoke its family and record it. */
async function reuse_detected(ctx: GrantContext, token: TokenRow): Promise<never> {
  const { idp, now } = ctx;
  const revoked = await revoke_token(idp, token, now);
  idp.log({ level: "warn", msg: "refresh token reuse: family revoked", client_id: token.client_id, revoked });
  await record_event(idp, {
    type: "refresh_token_reuse",
    outcome: "failure",
    user_id: token.user_id,
    client_id: token.client_id,
    ip: ctx.ip,
    at: now,
    details: { revoked_tokens: revoked },
  });
  throw new OAuthError("invalid_grant", "the refresh token was already used; its tokens are revoked");
}

export async function refresh_token_grant(ctx: GrantContext): Promise<TokenResponse> {
  const { idp, client, params, now } = ctx;
  if (params.refresh_token === undefined || params.refresh_token === "") throw new OAuthError("invalid_request", "refresh_token is required");
  const hash = token_hash(params.refresh_token);
  const stored = hash === null ? null : await idp.store.get_token(hash);
  if (hash === null || stored === null || stored.kind !== "refresh") throw new OAuthError("invalid_grant", "the refresh token is invalid");
  // RFC 6749 §6: the refresh token was issued to this client. Checked before rotating, so a
  // client holding another's token cannot spend it (nor trigger the family's revocation).
  if (stored.client_id !== client.client_id) throw new OAuthError("invalid_grant", "the refresh token was issued to another client");
  const scopes = narrow_scope(stored.scope, params.scope);
  // RFC 8707 §2.2: a refresh may narrow to any resource the grant was authorized for (resources.ts);
  // checked before rotating, so a wrong resource does not spend the token.
  const resource = stored.resources === null && params.resource === undefined ? null : await narrow_resource(idp, stored.resources, params.resource);
  // RFC 9449 §5: a refresh token bound to a DPoP key (a public client's) is refreshed only with a
  // proof of that key. Checked before rotating, so a thief without the key cannot spend it.
  if (stored.jkt !== null && ctx.dpop_jkt !== stored.jkt) {
    await record_event(idp, {
      type: "dpop_key_mismatch",
      outcome: "failure",
      user_id: stored.user_id,
      client_id: client.client_id,
      ip: ctx.ip,
      at: now,
      details: { proof: ctx.dpop_jkt === null ? "missing" : "other_key" },
    });
    throw new OAuthError(
      ctx.dpop_jkt === null ? "invalid_dpop_proof" : "invalid_grant",
      ctx.dpop_jkt === null ? "this refresh token is bound to a DPoP key: send a DPoP proof of it" : "the refresh token is bound to another DPoP key",
    );
  }

  // The user must still be active (account_status.ts): a disabled user's refresh token is
  // worth nothing, and its family goes (RFC 6749 §5.2 invalid_grant: the grant is no longer valid).
  // Checked before rotating, so the refusal issues nothing.
  const user = stored.user_id === null ? null : await idp.store.get_user_by_id(stored.user_id);
  if (stored.user_id !== null && !is_active_user(user)) {
    await revoke_token(idp, stored, now);
    throw new OAuthError("invalid_grant", user === null ? "the user of this refresh token no longer exists" : "the user of this refresh token is not active");
  }

  const result = await idp.store.rotate_refresh_token(hash, now);
  if (result.status === "reused") return reuse_detected(ctx, result.token);
  if (result.status === "revoked") throw new OAuthError("invalid_grant", "the refresh token has been revoked");
  if (result.status === "expired") throw new OAuthError("invalid_grant", "the refresh token has expired");
  if (result.status === "not_found") throw new OAuthError("invalid_grant", "the refresh token is invalid");
  const token = result.token;
  // The client's access policy (groups.ts) holds at every refresh, not only at sign-in: a user
  // removed from its groups loses access now, and the whole token family goes (RFC 6749 §5.2
  // invalid_grant: the grant is no longer valid).
  const access = token.user_id === null ? null : await check_group_access(idp, client, token.user_id, { stage: "refresh", ip: ctx.ip });
  if (access !== null && !access.allowed) {
    await revoke_token(idp, token, now);
    throw new OAuthError("invalid_grant", ACCESS_DENIED_DESCRIPTION);
  }

  // RFC 6749 §6: the new refresh token keeps the scope of the one it replaces; the access token
  // gets the (possibly narrower) requested scope.
  const binding: TokenBinding = {
    client_id: token.client_id,
    user_id: token.user_id,
    scope: token.scope,
    grant_id: token.grant_id,
    family_id: token.family_id ?? token.grant_id,
    session_id_hash: token.session_id_hash,
    auth_time: token.auth_time,
    acr: token.acr,
    amr: token.amr,
    nonce: token.nonce,
    claims: token.claims,
  };
  const scope = scopes.join(" ");
  const access_scope = resource === null ? scope : resource_scopes(resource, scopes).join(" ");
  const openid = scopes.includes("openid") && token.user_id !== null;
  // RFC 9449 §5: the new access token is bound to this request's key; the refresh token keeps its binding.
  const [issued, refresh] = await Promise.all([
    issue_access_token(idp, ctx.client, { ...binding, scope: access_scope, jkt: ctx.dpop_jkt }, now, resource),
    issue_refresh_token(idp, { ...binding, jkt: token.jkt, resources: token.resources }, now),
  ]);
  const body: TokenResponse = {
    access_token: issued.token,
    token_type: token_type(ctx.dpop_jkt),
    expires_in: issued.expires_in,
    scope: access_scope,
    refresh_token: refresh.token,
  };
  if (openid && user !== null) {
    // OIDC Core §12.2: iss, sub, aud and auth_time of the original ID Token, a new iat, no nonce.
    body.id_token = await sign_id_token(idp, {
      client,
      user,
      authentication: token,
      scopes,
      access_token: issued.token,
      now,
      refresh: true,
      groups: access?.allowed ? access.groups : null,
    });
  }
  return body;
}
