/** Counts every answered request into the instance's metrics (src/oidc/ops/metrics.ts). */
import { Fw, type Context, type Next } from "../../fw/index.ts";
import type { Metrics } from "../../oidc/ops/metrics.ts";

/**
 * Records every request in `metrics`. Placed outside the error handler, so it sees the status
 * of error responses too; it only reads the context, never changes the response.
 */
export class MetricsHandler extends Fw.Handler {
  // Counts every request: nothing may be answered natively past it (Fw `native_routes`).
  override readonly sees_every_request = true;

  constructor(private readonly metrics: Metrics) {
    super();
  }

  async handle(context: Context, next: Next): Promise<Response> {
    const start = performance.now();
    let status = 500;
    try {
      const response = await next();
      status = response.status;
      return response;
    } finally {
      this.metrics.request(context.route, context.request.method, status, (performance.now() - start) / 1000);
    }
  }
}
