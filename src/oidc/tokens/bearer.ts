/**
 * The `Authorization: Bearer` header (RFC 6750 §2.1), read the same way by /userinfo and the
 * registration endpoints; and `Authorization: DPoP` (RFC 9449 §7.1), read by /userinfo.
 */
import { BearerError } from "../errors.ts";

/**
 * RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token; RFC 9449 §7.1: credentials = "DPoP" 1*SP
 * token68, same syntax as Bearer's b64token. `scheme` names the scheme, `credentials` reads it.
 */
const SCHEMES = {
  Bearer: { scheme: /^bearer(\s|$)/i, credentials: /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i },
  DPoP: { scheme: /^dpop(\s|$)/i, credentials: /^dpop +([A-Za-z0-9\-._~+/]+=*) *$/i },
} as const;

/** The token of an Authorization header of `name`'s scheme; null when absent or of another scheme. */
function scheme_credentials(name: keyof typeof SCHEMES, authorization: string | null, realm: string): string | null {
  const { scheme, credentials } = SCHEMES[name];
  if (authorization === null || !scheme.test(authorization)) return null;
  const match = credentials.exec(authorization);
  if (match === null) throw new BearerError("invalid_request", `malformed ${name} credentials`, realm);
  return match[1]!;
}

/**
 * The token of a Bearer Authorization header; null when the header is absent or of another
 * scheme; invalid_request (400 with a challenge) when it is Bearer but malformed.
 */
export function bearer_credentials(authorization: string | null, realm: string): string | null {
  return scheme_credentials("Bearer", authorization, realm);
}

/**
 * The token of a DPoP Authorization header; null when the header is absent or of another scheme;
 * invalid_request when it is DPoP but malformed.
 */
export function dpop_credentials(authorization: string | null, realm: string): string | null {
  return scheme_credentials("DPoP", authorization, realm);
}
