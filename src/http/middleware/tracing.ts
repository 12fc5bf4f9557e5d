/**
 * A span per request when traces are on (oidc/ops/tracing.ts; README, "Tracing"): the outermost
 * handler, so the span covers the whole chain and the request's log line carries its ids. Its
 * parent is the caller's W3C `traceparent`, taken from whoever sends it (W3C Trace Context §4.3
 * asks a receiver to continue the trace; the trace id is a correlation id, not a credential,
 * and OTEL_TRACES_SAMPLER decides whether the caller's sampled flag is followed). Named
 * `<method> <route template>` (OpenTelemetry's HTTP semantic conventions), never the path or the
 * query, which can hold codes and tokens.
 */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import type { Tracing } from "../../oidc/ops/tracing.ts";

export class TracingHandler extends Fw.Handler {
  // A span for every request: nothing may be answered natively past it (Fw `native_routes`).
  override readonly sees_every_request = true;

  constructor(private readonly tracing: Tracing) {
    super();
  }

  async handle(context: Context, next: Next): Promise<Response> {
    const method = context.request.method;
    const span = this.tracing.start_request(context.headers.get("traceparent"), context.headers.get("tracestate"), { "http.request.method": method });
    let status = 500;
    try {
      const response = await span.run(next);
      status = response.status;
      return response;
    } finally {
      const route = context.route;
      const request_id = context.state.request_id;
      span.end(
        route === undefined ? method : `${method} ${route}`,
        {
          "http.response.status_code": status,
          ...(route === undefined ? {} : { "http.route": route }),
          ...(typeof request_id === "string" ? { "idp.request_id": request_id } : {}),
        },
        status >= 500,
      );
    }
  }
}
