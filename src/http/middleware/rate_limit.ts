/**
 * Applies the request rate limits (oidc/limits/endpoints.ts) before the endpoint runs: the limit is the
 * point, so a refused request costs its counter writes and nothing else. Sits inside the protocol
 * and registration handlers, whose CORS and no-store headers the 429 keeps. With the default
 * settings it counts only requests without client credentials and registrations; a request that
 * authenticates its client passes through untouched (its failures are counted where it is
 * authenticated, oidc/limits/client_auth.ts).
 *
 * The form body is read only when the Authorization header does not settle the question (no
 * Basic credentials, or a per-client quota and no client named). It is read once
 * (context.request.parsed(), by the app's body rules) and the endpoint gets the same result; a
 * body Fw refuses (too large, malformed) counts as one without credentials, and the endpoint
 * answers the refusal as before.
 */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import { FORM } from "../../oidc/clients/authentication.ts";
import type { Provider } from "../../oidc/provider.ts";
import { client_ip } from "./proxy.ts";
import { PATHS } from "../../oidc/discovery/paths.ts";
import { carries_credentials, claimed_client_id, count_request, counts_per_client, counts_requests, limited_endpoint } from "../../oidc/limits/endpoints.ts";

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
    const idp = this.idp;
    if (!counts_requests(idp.config, endpoint)) return next();
    let address: string | undefined;
    const ip = () => (address ??= client_ip(context, idp.config));
    if (endpoint === "register") {
      // RFC 7592: the client is in the path; POST /register has none yet.
      const client_id = path === PATHS.register ? null : safe_decode(path.slice(PATHS.register.length + 1));
      await count_request(idp, endpoint, ip, client_id, true);
      return next();
    }
    const authorization = context.headers.get("authorization");
    const per_client = counts_per_client(idp.config, endpoint);
    const named = claimed_client_id(authorization, null);
    const settled = carries_credentials(authorization, null) && (!per_client || named !== null);
    const form = settled ? null : await form_body(context);
    const client_id = per_client ? (named ?? claimed_client_id(null, form)) : null;
    await count_request(idp, endpoint, ip, client_id, carries_credentials(authorization, form));
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
