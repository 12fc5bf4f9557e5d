/**
 * The tracing seam: where the rules and the HTTP layer open spans, without knowing OpenTelemetry.
 * The implementation (app/tracing/otel.ts) is installed by the server when the OTLP environment
 * asks for traces (README, "Tracing"); until then `active` is null and every function here is a
 * null check and a direct call: tracing off costs nothing measurable (bench/RESULTS.md, "Tracing").
 *
 * One installation per process, as OpenTelemetry's own API is (its global tracer provider).
 * Child spans open only inside a request's span: background work (key polling, the purge, the
 * mail worker) makes no traces.
 *
 * What a span may carry: route templates, methods, statuses, client ids, key ids, algorithms,
 * store method names, host names. Never a token, code, password, secret, cookie, query string
 * or error message (an error gives its class name only).
 */

export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** OpenTelemetry's span kinds used here: work in this process, or a call to another service (a database, a URL). */
export type SpanKind = "internal" | "client";

/** One request's span, opened by the HTTP layer (http/middleware/tracing.ts). */
export interface RequestSpan {
  /** Runs `body` with this span as the current one: the spans it opens are its children. */
  run<T>(body: () => T): T;
  /** Ends the span with its final name, its attributes, and whether it failed (a 5xx). */
  end(name: string, attributes: SpanAttributes, failed: boolean): void;
}

export interface Tracing {
  /**
   * A server span for one request. Its parent is the caller's W3C `traceparent` (and
   * `tracestate`) when valid (W3C Trace Context §4.3: a malformed one starts a new trace).
   */
  start_request(traceparent: string | null, tracestate: string | null, attributes: SpanAttributes): RequestSpan;
  /** Runs `body` in a child span of the current one (a plain call without one); a promise ends it when settled. */
  span<T>(name: string, attributes: SpanAttributes, body: () => T, kind: SpanKind): T;
  /** Adds attributes to the current request's span (the client, once known). */
  annotate_request(attributes: SpanAttributes): void;
  /** Adds attributes to the current span. */
  annotate_span(attributes: SpanAttributes): void;
  /** The W3C Trace Context headers (`traceparent`, `tracestate`) of the current span, for a request this one makes; none without a span. */
  headers(): Record<string, string>;
  /** The current span's ids, for log lines; null without a span. */
  ids(): { trace_id: string; span_id: string } | null;
}

let active: Tracing | null = null;

/** Installs the process's tracing (the server, when traces are on), or removes it (null). */
export function install_tracing(tracing: Tracing | null): void {
  active = tracing;
}

/** The installed tracing, or null when traces are off. */
export function current_tracing(): Tracing | null {
  return active;
}

/** `body()`, in a child span `name` of the current span when tracing is on. */
export function traced<T>(name: string, attributes: SpanAttributes, body: () => T, kind: SpanKind = "internal"): T {
  return active === null ? body() : active.span(name, attributes, body, kind);
}

/** Attributes for the current request's span (nothing when tracing is off). */
export function annotate_request(attributes: SpanAttributes): void {
  active?.annotate_request(attributes);
}

/** Attributes for the current span (nothing when tracing is off). */
export function annotate_span(attributes: SpanAttributes): void {
  active?.annotate_span(attributes);
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** The trace context headers to send with an outbound request: none when tracing is off. */
export function trace_headers(): Readonly<Record<string, string>> {
  return active === null ? NO_HEADERS : active.headers();
}
