/**
 * private_key_jwt client authentication (RFC 7521 §4.2, RFC 7523 §2.2 and §3, OIDC Core §9): the
 * client signs a short JWT with a key whose public half it registered (jwks.ts).
 *
 * client_secret_jwt is not offered: it needs the client secret in clear to check an HMAC, and
 * this provider only keeps the secret's SHA-256 (RFC 6819 §5.1.4.1.3; docs/ARCHITECTURE.md,
 * "Security at rest").
 */
import { decodeJwt, errors, jwtVerify } from "jose";
import { ClientJwksError, client_keys } from "./jwks.ts";
import { type OAuthError, invalid_client } from "../errors.ts";
import { is_fapi_alg, jwt_header_alg } from "./fapi.ts";
import { ASSERTION_SIGNING_ALGS } from "../discovery/metadata.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow } from "../../store/types.ts";

/** RFC 7523 §2.2: the client_assertion_type of a JWT assertion. */
export const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** Asymmetric algorithms only, never `none` or HS* (advertised as token_endpoint_auth_signing_alg_values_supported). */
const ASSERTION_ALGS = ASSERTION_SIGNING_ALGS;

/** An assertion is for one request: it may not be valid for longer than this (seconds). */
const MAX_LIFETIME = 600;
/** Clock skew accepted between the client and us (seconds). */
const CLOCK_TOLERANCE = 60;
const MAX_JTI_LENGTH = 256;

function refused(idp: Provider, description: string): OAuthError {
  return invalid_client(description, false, idp.config.issuer);
}

/**
 * The client_id an assertion names, read before verifying it only to know whose keys verify it.
 * RFC 7523 §3: iss and sub are both the client_id.
 */
export function assertion_client_id(idp: Provider, assertion: string): string {
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(assertion);
  } catch {
    throw refused(idp, "client_assertion is not a JWT");
  }
  const { iss, sub } = claims;
  if (typeof sub !== "string" || sub === "" || iss !== sub) throw refused(idp, "client_assertion: iss and sub must both be the client_id (RFC 7523 §3)");
  return sub;
}

function describe(error: unknown): string {
  if (error instanceof ClientJwksError) return error.message;
  if (error instanceof errors.JWTExpired) return "client_assertion has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return "client_assertion aud must be the issuer, the token endpoint or this endpoint's URL";
    return `client_assertion claim ${error.claim} is missing or invalid`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return `client_assertion must be signed with one of ${ASSERTION_ALGS.join(", ")}`;
  if (error instanceof errors.JWKSNoMatchingKey) return "client_assertion is not signed by a key the client registered";
  if (error instanceof errors.JWKSMultipleMatchingKeys) return "client_assertion needs a kid: several registered keys match";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "client_assertion signature is invalid";
  return "client_assertion is invalid";
}

/**
 * Verifies a client assertion of `client`; invalid_client (401) when it does not hold.
 * `audiences`: the values this endpoint accepts as aud (the issuer, the token endpoint URL, and
 * the URL of the endpoint called).
 */
export async function verify_client_assertion(idp: Provider, client: ClientRow, assertion: string, audiences: readonly string[], fapi = false): Promise<void> {
  const now = idp.now();
  const registered = client.metadata.token_endpoint_auth_signing_alg;
  // OIDC Registration §2: with token_endpoint_auth_signing_alg, other algs MUST be rejected.
  // FAPI 2.0 §5.4.1: PS256, ES256 or EdDSA only (never RS256) for a FAPI client.
  const allowed = fapi ? ASSERTION_ALGS.filter(is_fapi_alg) : ASSERTION_ALGS;
  const algorithms = registered === undefined ? [...allowed] : allowed.filter((alg) => alg === registered);
  if (fapi) {
    // FAPI 2.0 §5.3.2.1 item 8: the issuer "as a string" (never an array), and only it.
    let aud: unknown;
    try {
      aud = decodeJwt(assertion).aud;
    } catch {
      throw refused(idp, "client_assertion is not a JWT");
    }
    if (typeof aud !== "string" || !audiences.includes(aud)) throw refused(idp, "client_assertion aud must be the issuer as a string under FAPI 2.0 (§5.3.2.1)");
    const alg = jwt_header_alg(assertion);
    if (alg !== null && !algorithms.includes(alg as (typeof algorithms)[number]))
      throw refused(idp, `client_assertion must be signed with one of ${algorithms.join(", ")} under FAPI 2.0 (§5.4.1), not ${alg}`);
  }
  let payload: Record<string, unknown>;
  try {
    const keys = client_keys(idp, client);
    ({ payload } = await jwtVerify(assertion, keys, {
      algorithms,
      // RFC 7523 §3: iss = sub = client_id; aud identifies us; exp is required; OIDC Core §9: jti too.
      issuer: client.client_id,
      subject: client.client_id,
      audience: [...audiences],
      requiredClaims: ["exp", "jti"],
      currentDate: new Date(now * 1000),
      clockTolerance: CLOCK_TOLERANCE,
    }));
  } catch (error) {
    throw refused(idp, describe(error));
  }
  const exp = payload.exp as number;
  // RFC 7523 §3: "The authorization server MAY reject JWTs with an exp claim value that is
  // unreasonably far in the future": it bounds how long a jti must be remembered.
  if (exp > now + MAX_LIFETIME + CLOCK_TOLERANCE) throw refused(idp, `client_assertion exp is more than ${MAX_LIFETIME} seconds ahead`);
  const jti = payload.jti;
  if (typeof jti !== "string" || jti === "" || jti.length > MAX_JTI_LENGTH) throw refused(idp, "client_assertion jti is missing or invalid");
  // RFC 7523 §3 (jti), OIDC Core §9: an assertion is single use; remembered until it expires.
  if (!(await idp.store.use_jti(client.client_id, jti, exp + CLOCK_TOLERANCE, now))) throw refused(idp, "client_assertion was already used (jti replay)");
}
