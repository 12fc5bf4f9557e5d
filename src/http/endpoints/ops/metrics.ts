/**
 * GET /metrics: this instance's counters in the Prometheus text format. Mounted only when
 * IDP_METRICS_TOKEN is set (404 otherwise); the scraper sends `Authorization: Bearer <token>`
 * (401 without it or with another one). The foreign password hash gauge is counted in the store
 * at each scrape.
 */
import { Fw } from "../../../fw/index.ts";
import { constant_time_equal, sha256 } from "../../../oidc/crypto/secrets.ts";
import { PROMETHEUS_CONTENT_TYPE } from "../../../oidc/ops/metrics.ts";
import type { Provider } from "../../../oidc/provider.ts";

/** The exposition text as a response contract with its own content type. */
export class PrometheusText {
  readonly content_type = PROMETHEUS_CONTENT_TYPE;
  constructor(private readonly text: string) {}
  render(): string {
    return this.text;
  }
}

export const MetricsEndpoint = (idp: Provider, token: string) => {
  // Compared as digests: constant time, and the length of the token is not revealed either.
  const expected = sha256(token);
  return class Metrics extends Fw.Endpoint(Fw.EmptyRequest, PrometheusText) {
    static route = "GET /metrics";
    async call() {
      const header = this.headers.get("authorization") ?? "";
      const given = /^Bearer +(\S+)\s*$/i.exec(header)?.[1];
      if (given === undefined || !constant_time_equal(sha256(given), expected)) {
        throw new Fw.Unauthorized("A valid metrics token is required", { headers: { "WWW-Authenticate": 'Bearer realm="metrics"' } });
      }
      this.response.headers.set("cache-control", "no-store");
      // A gauge of the database, not of this instance: one count query a scrape.
      idp.metrics.foreign_password_hashes(await idp.store.count_foreign_password_hashes());
      return new PrometheusText(idp.metrics.render());
    }
  };
};
