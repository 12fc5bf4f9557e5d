/**
 * Around the registration endpoints (/register and /register/:client_id), whatever answers:
 * - `Cache-Control: no-store` on every answer, errors included (RFC 7591 §3.2.1, RFC 7592 §3);
 * - errors the framework raises before an endpoint runs (malformed JSON, 413, 415, 405) in the
 *   protocol's shape, `{error: "invalid_request", error_description}` (RFC 7591 §3.2.2 keeps
 *   RFC 6749's error response format).
 */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import { PATHS } from "../../oidc/discovery/paths.ts";
import { in_oauth_shape } from "../errors.ts";

export class RegistrationHandler extends Fw.Handler {
  async handle(context: Context, next: Next): Promise<Response> {
    const path = context.request.path;
    if (path !== PATHS.register && !path.startsWith(`${PATHS.register}/`)) return next();
    const headers = context.response.headers;
    headers.set("cache-control", "no-store");
    headers.set("pragma", "no-cache");
    try {
      return await next();
    } catch (error) {
      throw in_oauth_shape(error);
    }
  }
}
