/**
 * Request objects (OIDC Core §6.1, RFC 9101): authorization request parameters sent as a JWT in
 * the `request` parameter.
 *
 * - Unsigned (`alg: none`) objects are accepted, and signed ones (RS256, PS256, ES256, EdDSA)
 *   verified with the client's registered keys (`jwks` or `jwks_uri`, client_jwks.ts). A client
 *   that registered `request_object_signing_alg` (OIDC Registration §2) must use exactly that
 *   alg. Encrypted objects are not supported (invalid_request_object).
 * - OIDC Core §6.3.3: parameters inside the object override those of the query; client_id, and
 *   response_type when both carry one, must match. `iss` (when present) must be the client_id
 *   and `aud` must include our issuer (§6.1, RFC 9101 §4); exp/nbf are checked.
 * - `request_uri` by reference to a URL is not supported (request_uri_not_supported, OIDC Core
 *   §6.2, advertised as request_uri_parameter_supported false); the references of pushed
 *   requests (RFC 9126) are read before this (request_uri.ts).
 */
import { UnsecuredJWT, decodeProtectedHeader, jwtVerify, type JWTPayload } from "jose";
import { ClientJwksError, client_keys } from "./client_jwks.ts";
import { AuthorizationError } from "./errors.ts";
import type { Provider } from "./provider.ts";
import type { ClientRow } from "../store/types.ts";

/** What request_object_signing_alg_values_supported advertises. */
/** Authorization request parameters as sent: a string, or an array when repeated. */
export type RawParams = Record<string, string | string[] | undefined>;

export const REQUEST_OBJECT_ALGS = ["none", "RS256", "PS256", "ES256", "EdDSA"] as const;

const SIGNED_ALGS: ReadonlySet<string> = new Set(REQUEST_OBJECT_ALGS.filter((alg) => alg !== "none"));

/** JWT claims that describe the object itself, not the authorization request. */
const JWT_CLAIMS: ReadonlySet<string> = new Set(["iss", "aud", "exp", "iat", "nbf", "jti"]);

/** Tolerated clock difference with the client for exp/nbf. */
const CLOCK_TOLERANCE_SECONDS = 30;

function invalid(description: string): AuthorizationError {
  return new AuthorizationError("invalid_request_object", description);
}

/** Verifies the JWT and returns its claims; invalid_request_object on any problem. */
async function verify(idp: Provider, client: ClientRow, jwt: string): Promise<JWTPayload> {
  // Five parts would be a JWE (RFC 7516 §7.1).
  if (jwt.split(".").length !== 3) throw invalid("the request object must be a signed or unsecured JWT; encrypted request objects are not supported");
  let alg: string | undefined;
  try {
    alg = decodeProtectedHeader(jwt).alg;
  } catch {
    throw invalid("the request object is not a JWT");
  }
  const registered = client.metadata.request_object_signing_alg;
  if (typeof registered === "string" && alg !== registered) throw invalid(`this client must sign request objects with ${registered}`);
  const options = { currentDate: new Date(idp.now() * 1000), clockTolerance: CLOCK_TOLERANCE_SECONDS };
  try {
    if (alg === "none") return UnsecuredJWT.decode(jwt, options).payload;
    if (alg === undefined || !SIGNED_ALGS.has(alg)) throw invalid(`request object alg ${alg ?? "(missing)"} is not supported; use one of ${REQUEST_OBJECT_ALGS.join(", ")}`);
    const { payload } = await jwtVerify(jwt, client_keys(idp, client), { ...options, algorithms: [alg] });
    return payload;
  } catch (error) {
    if (error instanceof AuthorizationError) throw error;
    if (error instanceof ClientJwksError) throw invalid(`the request object could not be verified: ${error.message}`);
    const code = (error as { code?: unknown }).code;
    throw invalid(`the request object could not be verified${typeof code === "string" ? ` (${code})` : ""}`);
  }
}

/** A claim of the object as a request parameter: JSON objects (claims) are re-serialized. */
function as_param(name: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return JSON.stringify(value);
  throw invalid(`${name} in the request object must be a string, a number or (for claims) an object`);
}

/**
 * The parameters of the request: the query alone, or merged with its request object.
 * AuthorizationError when the object is unusable or request_uri is used.
 */
export async function with_request_object(idp: Provider, client: ClientRow, query: RawParams): Promise<RawParams> {
  if (query.request_uri !== undefined) throw new AuthorizationError("request_uri_not_supported", "request_uri is not supported; send the request object by value in request");
  const jwt = query.request;
  if (jwt === undefined) return query;
  if (typeof jwt !== "string") throw new AuthorizationError("invalid_request", "request was sent more than once");
  const payload = await verify(idp, client, jwt);
  if (payload.iss !== undefined && payload.iss !== client.client_id) throw invalid("iss of the request object must be the client_id");
  if (payload.aud !== undefined && !(Array.isArray(payload.aud) ? payload.aud : [payload.aud]).includes(idp.config.issuer)) {
    throw invalid("aud of the request object must be this provider's issuer");
  }
  if ("request" in payload || "request_uri" in payload) throw invalid("a request object must not contain request or request_uri");
  // Null prototype: a "__proto__" claim stays a plain (ignored) name.
  const merged: RawParams = Object.assign(Object.create(null) as RawParams, query);
  delete merged.request;
  for (const [name, value] of Object.entries(payload)) {
    if (JWT_CLAIMS.has(name)) continue;
    const param = as_param(name, value);
    // OIDC Core §6.1: client_id and response_type "MUST match those in the Request Object".
    if ((name === "client_id" || name === "response_type") && query[name] !== undefined && query[name] !== param) {
      throw invalid(`${name} in the request object differs from the one in the request`);
    }
    merged[name] = param;
  }
  return merged;
}
