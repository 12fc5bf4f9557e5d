/**
 * Applies the request rate limits (rate_limit.ts) before the endpoint runs: the limit is the
 * point, so a refused request costs two counter writes and nothing else. Sits inside the protocol
 * and registration handlers, whose CORS and no-store headers the 429 keeps.
 *
 * The claimed client_id of a form body is read only when the Authorization header does not name
 * the client already. The body is read once (context.request.parsed(), by the app's body rules)
 * and the endpoint gets the same result; a body Fw refuses (too large, malformed) is counted per
 * address only, and the endpoint answers the refusal as before.
 */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import { FORM } from "../../oidc/client_auth.ts";
import type { Provider } from "../../oidc/provider.ts";
import { client_ip } from "./proxy.ts";
import { PATHS } from "../../oidc/metadata.ts";
import { claimed_client_id, count_request, limited_endpoint } from "../../oidc/rate_limit.ts";

/** The parsed form body of the request; null when it is not a form or Fw refuses it. */
async function form_body(context: Context): Promise<Record<string, unknown> | null> {
  if (context.request.raw.body === null || !FORM.test(context.headers.get("content-type") ?? "")) return null;
  try {
    return (await context.request.parsed()) ?? null;
  } catch {
    // The same error is raised again when the endpoint asks for the body.
    return null;
  }
}

export class RateLimitHandler extends Fw.Handler {
  constructor(private readonly idp: Provider) {
    super();
  }

  async handle(context: Context, next: Next): Promise<Response> {
    const { path, method } = context.request;
    const endpoint = limited_endpoint(path);
    // CORS preflights carry no credentials and do no work.
    if (endpoint === null || method === "OPTIONS") return next();
    let client_id: string | null;
    if (endpoint === "register") {
      // RFC 7592: the client is in the path; POST /register has none yet.
      client_id = path === PATHS.register ? null : safe_decode(path.slice(PATHS.register.length + 1));
    } else {
      const authorization = context.headers.get("authorization");
      client_id = claimed_client_id(authorization, null) ?? claimed_client_id(null, await form_body(context));
    }
    await count_request(this.idp, endpoint, client_ip(context, this.idp.config), client_id);
    return next();
  }
}

function safe_decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
