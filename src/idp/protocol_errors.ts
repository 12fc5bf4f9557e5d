/**
 * Keeps the protocol endpoints (/token, /userinfo) in their own shapes even for errors raised by
 * the framework before the endpoint runs (a malformed body, 413, 415, 405): `{error,
 * error_description}` with `invalid_request` (RFC 6749 §5.2), and `Cache-Control: no-store` on
 * every answer (RFC 6749 §5.1, OIDC Core §5.3.2).
 */
import { Fw, HttpError, type Context, type Next } from "../fw/index.ts";
import { OAuthError } from "./errors.ts";

export class ProtocolErrorsHandler extends Fw.Handler {
  private readonly paths: Set<string>;
  constructor(paths: readonly string[]) {
    super();
    this.paths = new Set(paths);
  }

  async handle(context: Context, next: Next): Promise<Response> {
    if (!this.paths.has(context.request.path)) return next();
    context.response.headers.set("cache-control", "no-store");
    context.response.headers.set("pragma", "no-cache");
    try {
      return await next();
    } catch (error) {
      if (error instanceof HttpError && !(error instanceof OAuthError) && error.status < 500) {
        throw new OAuthError("invalid_request", error.message, { status: error.status, headers: error.headers });
      }
      throw error;
    }
  }
}
