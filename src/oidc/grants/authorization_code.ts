/**
 * The authorization code grant (RFC 6749 §4.1.3, OIDC Core §3.1.3), with a refresh token when
 * offline access was granted (OIDC Core §11).
 *
 * Hot path (benchmarked): one atomic consume_code, then the token insert(s) and the user lookup
 * together (the user must be active, whatever the scope), then one signature. The client was looked up once by the endpoint.
 */
import { record_event } from "../audit.ts";
import { allows_grant, is_public } from "../clients/metadata.ts";
import { secret_key } from "../crypto/secrets.ts";
import { OAuthError } from "../errors.ts";
import { sign_id_token } from "../tokens/id_token.ts";
import { verify_s256 } from "../authorize/pkce.ts";
import { narrow_resource, resource_scopes } from "../tokens/resources.ts";
import { split_scope } from "../claims/scopes.ts";
import { is_active_user } from "../accounts/account_status.ts";
import type { CodeRow } from "../../store/types.ts";
import { dpop_bindings, issue_access_token, issue_refresh_token, type TokenBinding } from "../tokens/access_and_refresh.ts";
import { token_type } from "../tokens/dpop.ts";
import type { GrantContext, TokenResponse } from "./types.ts";

/** Checks the code against the request; returns it, consumed. invalid_grant otherwise. */
async function redeem_code(ctx: GrantContext): Promise<CodeRow> {
  const { idp, client, params, now } = ctx;
  if (params.code === undefined || params.code === "") throw new OAuthError("invalid_request", "code is required");
  // Consumed before the client, redirect_uri and PKCE checks on purpose: a bad redemption burns
  // the code too (RFC 6749 §4.1.2, §10.5: a code is used once).
  const result = await idp.store.consume_code(secret_key(params.code), now);
  if (result.status === "not_found") throw new OAuthError("invalid_grant", "the authorization code is invalid");
  if (result.status === "expired") throw new OAuthError("invalid_grant", "the authorization code has expired");
  const code = result.code;
  if (result.status === "reused") {
    // RFC 6749 §4.1.2 / RFC 9700 §4.5: a code used twice may have been stolen; revoke every
    // token issued from it (refresh tokens included). Only for the client it was issued to, so
    // another client holding a leaked code cannot revoke the user's tokens with it.
    const revoked = code.client_id === client.client_id ? await idp.store.revoke_by_grant(code.grant_id, now) : 0;
    await record_event(idp, {
      type: "code_reuse",
      outcome: "failure",
      user_id: code.user_id,
      client_id: client.client_id,
      ip: ctx.ip,
      details: { issued_to: code.client_id, revoked_tokens: revoked },
    });
    throw new OAuthError("invalid_grant", "the authorization code was already used");
  }
  // RFC 6749 §4.1.3: the code was issued to this client ...
  if (code.client_id !== client.client_id) throw new OAuthError("invalid_grant", "the authorization code was issued to another client");
  // ... and redirect_uri is identical to the one of the authorization request (which
  // always carries one: OIDC Core §3.1.2.1).
  if (params.redirect_uri !== code.redirect_uri) throw new OAuthError("invalid_grant", "redirect_uri does not match the authorization request");
  if (code.code_challenge !== null) {
    // RFC 7636 §4.6.
    if (params.code_verifier === undefined) throw new OAuthError("invalid_grant", "code_verifier is required");
    if (!verify_s256(params.code_verifier, code.code_challenge)) throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge");
  } else if (params.code_verifier !== undefined) {
    // RFC 9700 §2.1.1: a code_verifier for a code requested without code_challenge is a
    // PKCE downgrade attempt; the request MUST be rejected. invalid_grant: the grant, not
    // the request, is what does not fit.
    throw new OAuthError("invalid_grant", "code_verifier sent but the authorization request had no code_challenge");
  }
  // RFC 9449 §10: a code bound to a DPoP key is redeemed only with a proof of that key.
  if (code.dpop_jkt !== null && ctx.dpop_jkt !== code.dpop_jkt) {
    throw new OAuthError(
      "invalid_dpop_proof",
      ctx.dpop_jkt === null ? "this code is bound to a DPoP key: send a DPoP proof of it" : "the DPoP proof is not of the key the code is bound to",
    );
  }
  return code;
}

export async function authorization_code_grant(ctx: GrantContext): Promise<TokenResponse> {
  return issue_user_tokens(ctx, await redeem_code(ctx));
}

/**
 * What a user's authorization records for its tokens: a code row, or an approved device
 * authorization (RFC 8628 §3.5, grants/device_code.ts), which is issued the same tokens.
 */
export type UserAuthorization = Pick<CodeRow, "client_id" | "user_id" | "scope" | "grant_id" | "session_id_hash" | "auth_time" | "acr" | "amr" | "nonce" | "claims"> &
  Partial<Pick<CodeRow, "resources">>;

/** The tokens of a redeemed user authorization: access token, refresh token (offline_access), ID Token (openid). */
export async function issue_user_tokens(ctx: GrantContext, code: UserAuthorization): Promise<TokenResponse> {
  const { idp, client, now } = ctx;
  const requested = split_scope(code.scope);
  // OIDC Core §11: a refresh token for offline_access, which reached the code only with the
  // user's consent (authorize/decision.ts asks again unless a stored consent covers it, or the client
  // is first-party). A client not registered for refresh_token has it ignored.
  const offline = requested.includes("offline_access") && allows_grant(client, "refresh_token");
  const scopes = offline ? requested : requested.filter((scope) => scope !== "offline_access");
  const scope = scopes.join(" ");
  const openid = scopes.includes("openid");
  // RFC 8707 §2.2: the access token is for one of the authorized resources (resources.ts), with
  // the granted scopes that resource accepts; the ID Token and refresh token keep the whole grant.
  const authorized = code.resources ?? null;
  const resource = authorized === null && ctx.params.resource === undefined ? null : await narrow_resource(idp, authorized, ctx.params.resource);
  const access_scope = resource === null ? scope : resource_scopes(resource, scopes).join(" ");
  const binding: TokenBinding = {
    client_id: code.client_id,
    user_id: code.user_id,
    scope,
    grant_id: code.grant_id,
    // One authorization is one token family: a refresh token's replay or revocation ends them all.
    family_id: code.grant_id,
    session_id_hash: code.session_id_hash,
    auth_time: code.auth_time,
    acr: code.acr,
    amr: code.amr,
    nonce: code.nonce,
    claims: code.claims,
  };
  const jkt = dpop_bindings(ctx.dpop_jkt, is_public(client));
  const [access, refresh, user] = await Promise.all([
    issue_access_token(idp, client, { ...binding, scope: access_scope, jkt: jkt.access }, now, resource),
    offline ? issue_refresh_token(idp, { ...binding, jkt: jkt.refresh, resources: authorized }, now) : null,
    idp.store.get_user_by_id(code.user_id),
  ]);
  // A code or device approval is redeemed only while its user exists and is active
  // (account_status.ts): one approved before the account was disabled yields nothing, and the
  // tokens just stored are revoked (RFC 6749 §5.2 invalid_grant).
  if (!is_active_user(user)) {
    await idp.store.revoke_by_grant(code.grant_id, now);
    throw new OAuthError("invalid_grant", user === null ? "the user of this authorization no longer exists" : "the user of this authorization is not active");
  }
  const body: TokenResponse = { access_token: access.token, token_type: token_type(jkt.access), expires_in: access.expires_in };
  if (access_scope !== "") body.scope = access_scope;
  if (refresh !== null) body.refresh_token = refresh.token;
  // OIDC Core §3.1.3.3: an ID Token when the openid scope was granted; plain OAuth 2.0 otherwise.
  if (openid) {
    body.id_token = await sign_id_token(idp, { client, user, authentication: code, scopes, access_token: access.token, now });
  }
  return body;
}
