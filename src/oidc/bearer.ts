/**
 * The `Authorization: Bearer` header (RFC 6750 §2.1), read the same way by /userinfo and the
 * registration endpoints.
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
