/**
 * The OpenTelemetry implementation of the tracing seam (oidc/ops/tracing.ts), loaded by index.ts
 * only when traces are on. The maintained OpenTelemetry JS packages do the work: the trace SDK
 * (spans, samplers, a batching processor), the OTLP/HTTP exporter (JSON to `/v1/traces`) and W3C
 * Trace Context's propagator. What this file adds:
 *
 * - The current span is kept in an AsyncLocalStorage of its own (node:async_hooks, on Bun and
 *   Deno alike), not in OpenTelemetry's global context manager: nothing global is registered.
 * - The sampler from OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (config `tracing`), as the
 *   OpenTelemetry SDK environment variables define them; the resource is `service.name` (OTEL_SERVICE_NAME)
 *   and `service.version`.
 * - An export that fails is logged (once a minute at most) instead of being dropped silently.
 * - A failed span gets the error's class name (`error.type`), never its message.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter, type TextMapSetter, type Tracer } from "@opentelemetry/api";
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from "@opentelemetry/sdk-trace";
import { VERSION } from "../../cli/version.ts";
import { otlp_headers, type Config } from "../../config/schema.ts";
import { current_tracing, install_tracing, type RequestSpan, type SpanAttributes, type SpanKind as Kind, type Tracing } from "../../oidc/ops/tracing.ts";
import type { Log } from "../../oidc/provider.ts";
import type { RunningTracing } from "./running.ts";
import { trace_password_hashing, traced_store } from "./wrap.ts";

type Settings = Config["tracing"];

/** The current span, and the request's span it belongs to. */
type Active = { readonly context: Context; readonly request: Span };

type Carrier = Record<string, string | null>;
const GETTER: TextMapGetter<Carrier> = { get: (carrier, key) => carrier[key] ?? undefined, keys: (carrier) => Object.keys(carrier) };
const SETTER: TextMapSetter<Record<string, string>> = { set: (carrier, key, value) => void (carrier[key] = value) };

/** Ends `span` as failed, naming the error's class only (a message could quote what must not be exported). */
function fail(span: Span, error: unknown): void {
  span.setAttribute("error.type", error instanceof Error ? error.name : typeof error);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

export class OtelTracing implements Tracing {
  private readonly current = new AsyncLocalStorage<Active>();
  private readonly propagator = new W3CTraceContextPropagator();

  constructor(private readonly tracer: Tracer) {}

  start_request(traceparent: string | null, tracestate: string | null, attributes: SpanAttributes): RequestSpan {
    const parent = traceparent === null ? ROOT_CONTEXT : this.propagator.extract(ROOT_CONTEXT, { traceparent, tracestate }, GETTER);
    const span = this.tracer.startSpan("request", { kind: SpanKind.SERVER, attributes }, parent);
    const active: Active = { context: trace.setSpan(parent, span), request: span };
    return {
      run: (body) => this.current.run(active, body),
      end(name, final, failed) {
        span.updateName(name);
        span.setAttributes(final);
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  span<T>(name: string, attributes: SpanAttributes, body: () => T, kind: Kind): T {
    const active = this.current.getStore();
    if (active === undefined) return body();
    const span = this.tracer.startSpan(name, { kind: kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes }, active.context);
    let result: T;
    try {
      result = this.current.run({ context: trace.setSpan(active.context, span), request: active.request }, body);
    } catch (error) {
      fail(span, error);
      span.end();
      throw error;
    }
    if (typeof (result as { then?: unknown } | null)?.then !== "function") {
      span.end();
      return result;
    }
    return Promise.resolve(result).then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        fail(span, error);
        span.end();
        throw error;
      },
    ) as T;
  }

  annotate_request(attributes: SpanAttributes): void {
    this.current.getStore()?.request.setAttributes(attributes);
  }

  annotate_span(attributes: SpanAttributes): void {
    const active = this.current.getStore();
    if (active !== undefined) trace.getSpan(active.context)?.setAttributes(attributes);
  }

  headers(): Record<string, string> {
    const active = this.current.getStore();
    const carrier: Record<string, string> = {};
    if (active !== undefined) this.propagator.inject(active.context, carrier, SETTER);
    return carrier;
  }

  ids(): { trace_id: string; span_id: string } | null {
    const active = this.current.getStore();
    const context = active === undefined ? undefined : trace.getSpanContext(active.context);
    return context === undefined ? null : { trace_id: context.traceId, span_id: context.spanId };
  }
}

/** OTEL_TRACES_SAMPLER and its argument (OpenTelemetry's "General SDK Configuration"). */
export function sampler_of(settings: Pick<Settings, "sampler" | "sampler_arg">): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(settings.sampler_arg ?? 1);
  switch (settings.sampler) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio();
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio() });
  }
}

/** The exporter, with its failures logged (at most once a minute) rather than dropped silently. */
class LoggedExporter implements SpanExporter {
  private warned_at = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly url: string,
    private readonly log: Log,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS && Date.now() - this.warned_at > 60_000) {
        this.warned_at = Date.now();
        this.log({ level: "warn", msg: "traces not exported", endpoint: this.url, spans: spans.length, error: result.error?.message ?? "failed" });
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Starts the SDK, installs the tracing in the seam and wraps password hashing; `stop` undoes it all. */
export function start_otel(settings: Settings, url: string, log: Log): RunningTracing {
  const exporter = new OTLPTraceExporter({ url, headers: settings.headers === undefined ? {} : (otlp_headers(settings.headers) ?? {}) });
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ "service.name": settings.service_name, "service.version": VERSION })),
    sampler: sampler_of(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter: new LoggedExporter(exporter, url.replace(/\/\/[^/@]*@/, "//"), log) })],
  });
  const tracing = new OtelTracing(provider.getTracer("idp", VERSION));
  install_tracing(tracing);
  const restore_hashing = trace_password_hashing(tracing);
  log({ level: "info", msg: "traces on", endpoint: url.replace(/\/\/[^/@]*@/, "//"), sampler: settings.sampler, service_name: settings.service_name });
  return {
    tracing,
    wrap_store: (store) => traced_store(store, tracing),
    async stop() {
      restore_hashing();
      if (current_tracing() === tracing) install_tracing(null);
      await provider.shutdown().catch((error: unknown) => log({ level: "warn", msg: "traces not flushed", error: error instanceof Error ? error.message : String(error) }));
    },
  };
}
