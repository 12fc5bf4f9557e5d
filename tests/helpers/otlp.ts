/**
 * A real OTLP/HTTP receiver for the tracing tests: a node:http server that takes what an
 * OpenTelemetry exporter POSTs to `/v1/traces`, keeps each raw body (to search for what must never
 * be exported) and decodes it. The exporter the provider uses (`@opentelemetry/exporter-trace-otlp-http`)
 * sends OTLP's JSON encoding (content-type application/json, ids in hex); a protobuf body is refused,
 * so a change of encoding fails the test instead of passing unread.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";

/** One span as the receiver decoded it, attributes flattened to plain values. */
export type ReceivedSpan = {
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status: number;
  resource: Record<string, string | number | boolean>;
};

export type OtlpReceiver = {
  url: string;
  /** Every body received, as sent. */
  raw: string[];
  /** The headers of every export. */
  headers: IncomingHttpHeaders[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
};

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };

function value_of(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  throw new Error(`attribute value of an unexpected type: ${JSON.stringify(value)}`);
}

function flat(attributes: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, value_of(value)]));
}

type Export = {
  resourceSpans: {
    resource: { attributes: KeyValue[] };
    scopeSpans: {
      spans: (Omit<ReceivedSpan, "trace_id" | "span_id" | "parent_span_id" | "attributes" | "status" | "resource"> & {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes: KeyValue[];
        status: { code?: number };
      })[];
    }[];
  }[];
};

export async function start_otlp_receiver(): Promise<OtlpReceiver> {
  const raw: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const decoded: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (request.method !== "POST" || request.url !== "/v1/traces" || request.headers["content-type"] !== "application/json") {
        response.writeHead(415).end();
        return;
      }
      raw.push(body);
      headers.push(request.headers);
      const document = JSON.parse(body) as Export;
      for (const resource_spans of document.resourceSpans) {
        const resource = flat(resource_spans.resource.attributes);
        for (const scope of resource_spans.scopeSpans) {
          for (const span of scope.spans) {
            decoded.push({
              trace_id: span.traceId,
              span_id: span.spanId,
              parent_span_id: span.parentSpanId ?? "",
              name: span.name,
              kind: span.kind,
              attributes: flat(span.attributes),
              status: span.status.code ?? 0,
              resource,
            });
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    raw,
    headers,
    spans: () => [...decoded],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
