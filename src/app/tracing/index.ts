/**
 * Traces, when the OpenTelemetry environment asks for them (config `tracing`: OTEL_EXPORTER_OTLP_
 * ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, not OTEL_SDK_DISABLED; README, "Tracing"). The
 * OpenTelemetry SDK is in otel.ts, imported by `start_tracing` only then: without an endpoint the
 * server neither loads nor runs any of it, and the seam (oidc/ops/tracing.ts) stays a null check.
 */
import type { Config } from "../../config/schema.ts";
import type { Tracing } from "../../oidc/ops/tracing.ts";
import type { Log } from "../../oidc/provider.ts";
import type { RunningTracing } from "./running.ts";

export type { RunningTracing } from "./running.ts";

/** Where traces go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces` (OTLP/HTTP); null: off. */
export function traces_url(settings: Config["tracing"]): string | null {
  if (settings.disabled) return null;
  if (settings.traces_endpoint !== undefined) return settings.traces_endpoint;
  if (settings.endpoint === undefined) return null;
  return `${settings.endpoint.replace(/\/+$/, "")}/v1/traces`;
}

/** Starts traces when configured (loading the SDK), else null. */
export async function start_tracing(config: Config, log: Log): Promise<RunningTracing | null> {
  const url = traces_url(config.tracing);
  if (url === null) return null;
  const { start_otel } = await import("./otel.ts");
  return start_otel(config.tracing, url, log);
}

/** `log` with the current span's `trace_id` and `span_id` on every line written inside one. */
export function with_trace_ids(log: Log, tracing: Tracing): Log {
  return (line) => {
    const ids = tracing.ids();
    log(ids === null ? line : { ...line, ...ids });
  };
}
