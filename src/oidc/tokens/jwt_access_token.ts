/**
 * JWT access tokens (RFC 9068), issued for a resource server registered with
 * `access_token_format: jwt` (resources.ts); opaque tokens stay the default (access_and_refresh.ts says why).
 *
 * Header `typ: at+jwt` (§2.1), signed with the provider's key ring like ID Tokens (RS256, which
 * every resource server supports: §2.1). Claims (§2.2): iss, exp, aud (the resource), sub (the
 * user, pairwise for a pairwise client as in introspection; the client for client_credentials, §2.2), client_id, iat, jti, scope; auth_time, acr and
 * amr when a user authenticated (§2.2.1); cnf.jkt when DPoP-bound (RFC 9449 §6.1); act for a
 * delegated token (RFC 8693 §4.1).
 *
 * Groups and roles (§2.2.3.1 allows them) are left out on purpose: they change while a token
 * lives, and a resource server that needs them asks introspection, which reads them fresh.
 *
 * The token is recorded in the store under `jwt_token_key(jti)`, so revocation (RFC 7009) and
 * introspection (RFC 7662) work as for opaque tokens. The key has a prefix no opaque token's key
 * can have, so a jti presented as an opaque token never matches.
 */
import { random_token, sha256 } from "../crypto/secrets.ts";
import type { Provider } from "../provider.ts";
import type { JsonObject, TokenRow } from "../../store/types.ts";

export const AT_JWT_TYP = "at+jwt";

/** The store key of a JWT access token. */
export function jwt_token_key(jti: string): string {
  return `jwt:${sha256(jti)}`;
}

export function new_jti(): string {
  return random_token(32);
}

/** Whether a presented token has a JWT's shape (three base64url parts). */
export function looks_like_jwt(value: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value);
}

export type JwtAccessTokenInput = Pick<TokenRow, "client_id" | "user_id" | "scope" | "auth_time" | "acr" | "amr" | "jkt" | "act"> & {
  /** The user's `sub` as the token's client knows it (pairwise.ts), null without a user. */
  sub: string | null;
  audience: string;
  jti: string;
  iat: number;
  exp: number;
};

export function sign_jwt_access_token(idp: Provider, input: JwtAccessTokenInput): Promise<string> {
  const payload: Record<string, unknown> = {
    iss: idp.config.issuer,
    exp: input.exp,
    aud: input.audience,
    // RFC 9068 §2.2: the user, as the token's client knows them (introspection says the same);
    // with no user (client_credentials) the client itself.
    sub: input.sub ?? input.client_id,
    client_id: input.client_id,
    iat: input.iat,
    jti: input.jti,
  };
  if (input.scope !== "") payload.scope = input.scope;
  if (input.user_id !== null) {
    if (input.auth_time !== null) payload.auth_time = input.auth_time;
    if (input.acr !== null) payload.acr = input.acr;
    if (input.amr.length > 0) payload.amr = input.amr;
  }
  if (input.jkt !== null) payload.cnf = { jkt: input.jkt };
  if (input.act !== null) payload.act = input.act as JsonObject;
  // The default alg: RS256 when configured (RFC 9068 §2.1 asks every resource server to support it).
  return idp.keys.sign(payload, { typ: AT_JWT_TYP });
}

/** The store key of a JWT access token we signed (any state but a bad signature); null otherwise. */
export async function verified_jwt_key(idp: Provider, value: string): Promise<string | null> {
  try {
    const payload = await idp.keys.verify(value, { issuer: idp.config.issuer, typ: AT_JWT_TYP, allow_expired: true });
    return typeof payload.jti === "string" ? jwt_token_key(payload.jti) : null;
  } catch {
    return null;
  }
}
