/**
 * Access and refresh tokens: opaque strings with 256 random bits, stored hashed (RFC 6819 §5.1.4.1.3)
 * under a key that keeps their order of issue (crypto/secrets.ts `ordered_secret`, `secret_key`).
 *
 * Why opaque access tokens and not JWTs (RFC 9068): every use looks the token up, so a
 * revocation (RFC 7009, logout, code or refresh token replay) takes effect at once instead of at
 * `exp`; a token is 55 characters instead of a kilobyte of claims in every API call; it carries no
 * personal data a client could read; and no signing key is spent on it (one signature per token
 * response, the ID Token's). A resource server asks RFC 7662 introspection what a token means.
 *
 * Tokens of one authorization share its `grant_id`. Every token issued to a user (code and
 * refresh grants, access tokens included, with or without a refresh token) also carries
 * `family_id` = grant_id, so `revoke_family` ends a whole rotation chain at once (RFC 9700
 * §4.14.2, RFC 7009 §2.1); only client_credentials tokens have `family_id` null.
 *
 * The exception: a resource server an operator registered with `--format jwt` gets RFC 9068 JWT
 * access tokens (jwt_access_token.ts), still recorded in the store so revocation and
 * introspection work; a token for a resource (RFC 8707) records it as its audience.
 */
import { is_issued_secret, ordered_secret, secret_key } from "../crypto/secrets.ts";
import { jwt_token_key, looks_like_jwt, new_jti, sign_jwt_access_token, verified_jwt_key } from "./jwt_access_token.ts";
import { subject_for } from "../claims/pairwise.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow, JsonObject, ResourceServerRow, TokenKind, TokenRow } from "../../store/types.ts";

export type IssuedToken = { token: string; expires_in: number };

/** What a token is bound to: its client, user (null for client_credentials), scope and authentication. */
export type TokenBinding = Pick<TokenRow, "client_id" | "user_id" | "scope" | "grant_id" | "family_id" | "session_id_hash" | "auth_time" | "acr" | "amr" | "nonce" | "claims"> & {
  /** RFC 9449 §6: the thumbprint of the DPoP key the token is bound to (absent or null: a bearer token). */
  jkt?: string | null;
  /** RFC 8707: a refresh token's authorized resources (an access token's audience is its `resource`). */
  resources?: string[] | null;
  /** RFC 8693 §4.1: the actor of a delegated token. */
  act?: JsonObject | null;
};

/**
 * RFC 9449 §5: access tokens are bound to the proof's key; refresh tokens only for public
 * clients (a confidential client's refresh token is bound to its client authentication instead).
 */
export function dpop_bindings(jkt: string | null, public_client: boolean): { access: string | null; refresh: string | null } {
  return { access: jkt, refresh: public_client ? jkt : null };
}

async function issue(idp: Provider, kind: TokenKind, binding: TokenBinding, ttl: number, now: number): Promise<IssuedToken> {
  const token = ordered_secret();
  await idp.store.insert_token({ ...binding, token_hash: secret_key(token), kind, created_at: now, expires_at: now + ttl });
  return { token, expires_in: ttl };
}

/**
 * An access token; for a registered resource (RFC 8707) audience-restricted to it, with the
 * resource's lifetime, and a JWT (RFC 9068) when the resource asked for that format.
 */
export function issue_access_token(idp: Provider, client: ClientRow, binding: TokenBinding, now: number, resource?: ResourceServerRow | null): Promise<IssuedToken> {
  if (resource === undefined || resource === null) return issue(idp, "access", binding, idp.config.tokens.access_token_ttl, now);
  const ttl = resource.access_token_ttl ?? idp.config.tokens.access_token_ttl;
  const audienced: TokenBinding = { ...binding, resources: [resource.uri] };
  if (resource.access_token_format === "opaque") return issue(idp, "access", audienced, ttl, now);
  return issue_jwt_access_token(idp, client, audienced, resource.uri, ttl, now);
}

async function issue_jwt_access_token(idp: Provider, client: ClientRow, binding: TokenBinding, audience: string, ttl: number, now: number): Promise<IssuedToken> {
  const jti = new_jti();
  const [token] = await Promise.all([
    sign_jwt_access_token(idp, {
      client_id: binding.client_id,
      user_id: binding.user_id,
      scope: binding.scope,
      auth_time: binding.auth_time,
      acr: binding.acr,
      amr: binding.amr,
      jkt: binding.jkt ?? null,
      act: binding.act ?? null,
      sub: binding.user_id === null ? null : subject_for(idp, client, binding.user_id),
      audience,
      jti,
      iat: now,
      exp: now + ttl,
    }),
    idp.store.insert_token({ ...binding, token_hash: jwt_token_key(jti), kind: "access", created_at: now, expires_at: now + ttl }),
  ]);
  return { token, expires_in: ttl };
}

/** A refresh token lives `refresh_token_ttl` from its issue; each rotation starts a new one. */
export function issue_refresh_token(idp: Provider, binding: TokenBinding, now: number): Promise<IssuedToken> {
  return issue(idp, "refresh", binding, idp.config.tokens.refresh_token_ttl, now);
}

/** The stored key of a value that has our tokens' shape; null for anything else (never hashed). */
export function token_hash(value: string): string | null {
  return is_issued_secret(value) ? secret_key(value) : null;
}

export type TokenState = "active" | "unknown" | "expired" | "revoked";

/** Whether a stored token may be used now; a rotated refresh token is spent (revoked). */
export function token_state(token: TokenRow | null, now: number): TokenState {
  if (token === null) return "unknown";
  if (token.revoked_at !== null || token.rotated_at !== null) return "revoked";
  return token.expires_at <= now ? "expired" : "active";
}

/**
 * Finds a token of either kind by its value (null when it cannot be ours or is not stored); a
 * JWT access token (RFC 9068) by the jti of a JWT whose signature is ours.
 */
export async function find_token(idp: Provider, value: string): Promise<TokenRow | null> {
  const hash = token_hash(value) ?? (looks_like_jwt(value) ? await verified_jwt_key(idp, value) : null);
  return hash === null ? null : idp.store.get_token(hash);
}

export type AccessTokenCheck = { ok: true; token: TokenRow } | { ok: false; reason: "unknown" | "expired" | "revoked" };

/**
 * Finds a live access token for this provider's own resources (/userinfo, the admin API) by its
 * value. A token audience-restricted to a registered resource server (RFC 8707) is not for us:
 * it reads as unknown here (RFC 9068 §4: a resource rejects tokens whose aud is not its own).
 */
export async function find_access_token(idp: Provider, value: string): Promise<AccessTokenCheck> {
  const token = await find_token(idp, value);
  if (token === null || token.kind !== "access" || token.resources !== null) return { ok: false, reason: "unknown" };
  const state = token_state(token, idp.now());
  return state === "active" ? { ok: true, token } : { ok: false, reason: state };
}

/**
 * Revokes a token and what hangs on it: a refresh token takes its whole family with it, access
 * tokens included (RFC 7009 §2.1 "SHOULD also invalidate all access tokens based on the same
 * authorization grant"); an access token only itself. Returns how many tokens were revoked.
 */
export async function revoke_token(idp: Provider, token: TokenRow, now: number): Promise<number> {
  if (token.kind === "refresh") return token.family_id === null ? idp.store.revoke_by_grant(token.grant_id, now) : idp.store.revoke_family(token.family_id, now);
  return (await idp.store.revoke_token(token.token_hash, now)) ? 1 : 0;
}
