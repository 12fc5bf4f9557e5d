/**
 * What the protocol endpoints called by clients (/token, /userinfo, /revoke, /introspect, /par, /device_authorization) share, whatever answers:
 * - errors in the protocol's shape even when the framework raises them before the endpoint runs
 *   (a malformed body, 413, 415, 405): `{error, error_description}` with invalid_request
 *   (RFC 6749 §5.2);
 * - `Cache-Control: no-store` on every answer (RFC 6749 §5.1, OIDC Core §5.3.2);
 * - CORS for browser-based clients (public clients with PKCE, OAuth 2.0 for Browser-Based Apps
 *   §6.3): any origin may read the answers, but never with cookies (no credentials mode), so CORS
 *   grants nothing a server-side caller does not already have.
 */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import { in_oauth_shape } from "../errors.ts";

export class ProtocolHandler extends Fw.Handler {
  private readonly paths: Set<string>;
  constructor(paths: readonly string[]) {
    super();
    this.paths = new Set(paths);
  }

  async handle(context: Context, next: Next): Promise<Response> {
    if (!this.paths.has(context.request.path)) return next();
    const headers = context.response.headers;
    headers.set("cache-control", "no-store");
    headers.set("pragma", "no-cache");
    headers.set("access-control-allow-origin", "*");
    // Userinfo errors are in WWW-Authenticate (RFC 6750 §3), DPoP server nonces in DPoP-Nonce
    // (RFC 9449 §8): let scripts read them.
    headers.set("access-control-expose-headers", "WWW-Authenticate, DPoP-Nonce");
    try {
      return await next();
    } catch (error) {
      throw in_oauth_shape(error);
    }
  }
}
