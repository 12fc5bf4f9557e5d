/**
 * The `Authorization: Bearer` header (RFC 6750 §2.1), read the same way by /userinfo and the
 * registration endpoints; and `Authorization: DPoP` (RFC 9449 §7.1), read by /userinfo.
 */
import { BearerError } from "./errors.ts";

/** RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The token of a Bearer Authorization header; null when the header is absent or of another
 * scheme; invalid_request (400 with a challenge) when it is Bearer but malformed.
 */
export function bearer_credentials(authorization: string | null, realm: string): string | null {
  if (authorization === null || !/^bearer(\s|$)/i.test(authorization)) return null;
  const match = BEARER.exec(authorization);
  if (match === null) throw new BearerError("invalid_request", "malformed Bearer credentials", realm);
  return match[1]!;
}

/** RFC 9449 §7.1: credentials = "DPoP" 1*SP token68, same syntax as Bearer's b64token. */
const DPOP = /^dpop +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The token of a DPoP Authorization header; null when the header is absent or of another scheme;
 * invalid_request when it is DPoP but malformed.
 */
export function dpop_credentials(authorization: string | null, realm: string): string | null {
  if (authorization === null || !/^dpop(\s|$)/i.test(authorization)) return null;
  const match = DPOP.exec(authorization);
  if (match === null) throw new BearerError("invalid_request", "malformed DPoP credentials", realm);
  return match[1]!;
}
