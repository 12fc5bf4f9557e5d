/**
 * Applies the request rate limits (rate_limit.ts) before the endpoint runs: the limit is the
 * point, so a refused request costs two counter writes and nothing else. Sits inside the protocol
 * and registration handlers, whose CORS and no-store headers the 429 keeps.
 *
 * The claimed client_id of a form body is read from a copy of the request (the endpoint reads the
 * original), and only when the Authorization header does not name the client already and the body
 * is a small form (64 KiB at most, the default body limit): a larger one is counted per address only.
 */
import { Fw, type Context, type Next } from "../fw/index.ts";
import type { Provider } from "./provider.ts";
import { client_ip } from "./proxy.ts";
import { PATHS } from "./metadata.ts";
import { claimed_client_id, count_request, limited_endpoint } from "./rate_limit.ts";

const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;
const MAX_FORM_READ = 64 * 1024;

/** The form body of `request`, read from a copy; null when it is not a form of at most MAX_FORM_READ bytes. */
async function small_form(request: Request): Promise<URLSearchParams | null> {
  if (request.body === null || !FORM.test(request.headers.get("content-type") ?? "")) return null;
  const length = request.headers.get("content-length");
  if (length !== null && !(Number(length) <= MAX_FORM_READ)) return null;
  const body = request.clone().body;
  if (body === null) return null;
  // Without a Content-Length (chunked), read at most MAX_FORM_READ bytes of the copy.
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_FORM_READ) return null;
      chunks.push(value);
    }
  } catch {
    return null;
  } finally {
    void reader.cancel().catch(() => {});
  }
  return new URLSearchParams(new TextDecoder().decode(Buffer.concat(chunks)));
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
      client_id = claimed_client_id(authorization, null) ?? claimed_client_id(null, await small_form(context.request.raw));
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
