/**
 * Request objects (OIDC Core §6.1, RFC 9101): authorization request parameters sent as a JWT in
 * the `request` parameter.
 *
 * - Unsigned (`alg: none`) objects are accepted, and signed ones (RS256, PS256, ES256, EdDSA)
 *   verified with the client's registered keys (`jwks` or `jwks_uri`, clients/jwks.ts). A client
 *   that registered `request_object_signing_alg` (OIDC Registration §2) must use exactly that
 *   alg. Encrypted objects are not supported (invalid_request_object).
 * - OIDC Core §6.3.3: parameters inside the object override those of the query; client_id, and
 *   response_type when both carry one, must match. `iss` (when present) must be the client_id
 *   and `aud` must include our issuer (§6.1, RFC 9101 §4); exp/nbf are checked.
 * - OIDC Core §6.2 `request_uri` by reference: the object is fetched from an https URL the
 *   client registered in `request_uris` (OIDC Registration §2; require_request_uri_registration:
 *   an exact match, query included — the fragment, which §6.2 lets a client use to tell versions
 *   apart, is not sent), through outbound/fetch.ts (SSRF fence, time and size limits), each time: no
 *   cache. Off with `request_uri.enabled` (request_uri_not_supported). The references of pushed
 *   requests (RFC 9126) are read before this (request_uri.ts).
 */
import { UnsecuredJWT, decodeProtectedHeader, jwtVerify, type JWTPayload } from "jose";
import { ClientJwksError, client_keys } from "../clients/jwks.ts";
import { AuthorizationError } from "../errors.ts";
import { OutboundError, outbound_fetch } from "../outbound/fetch.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow } from "../../store/types.ts";

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
  let jwt = query.request;
  if (query.request_uri !== undefined) {
    // OIDC Core §6.1: request and request_uri "MUST NOT be used together".
    if (jwt !== undefined) throw new AuthorizationError("invalid_request", "request and request_uri must not both be sent");
    jwt = await fetch_request_object(idp, client, query.request_uri);
  }
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
  delete merged.request_uri;
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

/** Whether `uri` is one of the client's request_uris (OIDC Registration §2), fragments aside. */
export function is_registered_request_uri(client: ClientRow, uri: string): boolean {
  const without_fragment = (value: string) => (value.includes("#") ? value.slice(0, value.indexOf("#")) : value);
  const registered = client.metadata.request_uris ?? [];
  return registered.some((value) => without_fragment(value) === without_fragment(uri));
}

/**
 * OIDC Core §6.2: the request object the client published at `request_uri`. Errors:
 * request_uri_not_supported when off, invalid_request_uri when not registered or not fetched
 * (§6.2: "the Authorization Server MUST ... retrieve the contents"; what went wrong stays in
 * our log, outbound/fetch.ts, never told to the caller).
 */
async function fetch_request_object(idp: Provider, client: ClientRow, request_uri: string | string[]): Promise<string> {
  if (!idp.config.request_uri.enabled) throw new AuthorizationError("request_uri_not_supported", "request_uri is not supported; send the request object by value in request");
  if (typeof request_uri !== "string") throw new AuthorizationError("invalid_request", "request_uri was sent more than once");
  // OIDC Core §6.2: "The request_uri value MUST NOT exceed 512 ASCII characters".
  if (request_uri.length > 512) throw new AuthorizationError("invalid_request_uri", "request_uri is longer than 512 characters");
  // require_request_uri_registration: only URLs the client registered are fetched (an SSRF fence too).
  if (!is_registered_request_uri(client, request_uri)) throw new AuthorizationError("invalid_request_uri", "request_uri is not one of the client's registered request_uris");
  const url = request_uri.includes("#") ? request_uri.slice(0, request_uri.indexOf("#")) : request_uri;
  let body: Uint8Array;
  try {
    const response = await outbound_fetch(idp, url, {
      purpose: "request_uri",
      client_id: client.client_id,
      headers: { accept: "application/oauth-authz-req+jwt, application/jwt" },
      max_bytes: idp.config.request_uri.max_bytes,
    });
    body = response.body;
  } catch (error) {
    if (error instanceof OutboundError) throw new AuthorizationError("invalid_request_uri", "the request object could not be fetched from request_uri");
    throw error;
  }
  const jwt = new TextDecoder().decode(body).trim();
  if (jwt === "") throw new AuthorizationError("invalid_request_uri", "request_uri answered an empty request object");
  return jwt;
}
