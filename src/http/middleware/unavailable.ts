/**
 * The one place where "the database is not there" becomes an answer: a StoreUnavailableError
 * raised anywhere below this handler leaves as 503 with `Retry-After`, rendered by the error
 * handler around it (negotiated: an HTML page for browsers, JSON otherwise), never as a 500 with
 * a stack. Nothing is retried here: the store already tried every pooled connection, and the
 * pool reconnects by itself on a later request once the database answers again.
 *
 * - Protocol endpoints called by clients (/token, /userinfo, registration, revocation,
 *   introspection) answer in the OAuth shape: `{error: "temporarily_unavailable",
 *   error_description}` (the code RFC 6749 §4.1.2.1 defines for this condition).
 * - Everything else answers the framework's `{error: "service_unavailable", message}`. The
 *   authorization endpoint cannot redirect the error to the client: without the database the
 *   redirect URI cannot be verified (RFC 6749 §4.1.2.1), so the browser sees the error page.
 *
 * A refused or dropped connection fails fast, but a database that stops answering without
 * closing (a network partition, a frozen host) would leave a query waiting for TCP to give up,
 * minutes later. So a request still unanswered after `timeout_ms` also gets the 503: the late
 * work is abandoned to finish or fail on its own (single-use steps fail closed: a code consumed
 * after its answer is simply unusable).
 */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import { OAuthHttpError } from "../errors.ts";
import { PATHS } from "../../oidc/discovery/paths.ts";
import { StoreUnavailableError } from "../../store/types.ts";

/** Seconds a client should wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

/** The deadline when none is given (the default of IDP_REQUEST_TIMEOUT_SECONDS). */
export const DEFAULT_TIMEOUT_MS = 15_000;

/** Paths (and their sub-paths) answered in the OAuth error shape. */
export const OAUTH_PATHS: readonly string[] = [PATHS.token, PATHS.userinfo, PATHS.register, PATHS.revoke, PATHS.introspect];

/** The StoreUnavailableError in an error or its chain of causes, if any. */
export function store_unavailable(error: unknown): StoreUnavailableError | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof StoreUnavailableError) return current;
  }
  return null;
}

function is_oauth_path(path: string): boolean {
  return OAUTH_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

/** Raised when a request outlives the deadline. */
export class DeadlineExceeded extends Error {
  override name = "DeadlineExceeded";
}

export class UnavailableHandler extends Fw.Handler {
  constructor(private readonly timeout_ms: number = DEFAULT_TIMEOUT_MS) {
    super();
  }

  async handle(context: Context, next: Next): Promise<Response> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineExceeded(`no answer within ${this.timeout_ms} ms`)), this.timeout_ms);
    });
    try {
      return await Promise.race([next(), deadline]);
    } catch (error) {
      const cause = error instanceof DeadlineExceeded ? error : store_unavailable(error);
      if (cause === null) throw error;
      context.app.log({
        level: "warn",
        msg: cause instanceof DeadlineExceeded ? "request deadline exceeded" : "database unavailable",
        request_id: context.state.request_id,
        method: context.request.method,
        route: context.route,
        error: cause.message,
      });
      const headers = { "Retry-After": String(RETRY_AFTER_SECONDS) };
      if (is_oauth_path(context.request.path)) {
        throw new OAuthHttpError("temporarily_unavailable", "the service is temporarily unavailable; try again shortly", 503, headers);
      }
      throw new Fw.ServiceUnavailable("The service is temporarily unavailable; try again shortly", { headers });
    } finally {
      clearTimeout(timer);
    }
  }
}
