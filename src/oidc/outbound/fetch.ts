/**
 * The one way the provider fetches a URL that a client chose: `jwks_uri` (RFC 7591 §2, OIDC
 * Registration §2), `backchannel_logout_uri` (OIDC Back-Channel Logout §2.5), `request_uri`
 * (OIDC Core §6.2), `sector_identifier_uri` (OIDC Registration §5) and upstream identity providers. Such a request is made
 * by the provider, from inside its network, to a destination an outsider named: a server-side
 * request forgery (SSRF) channel unless it is fenced in. The fence follows the OWASP SSRF
 * Prevention Cheat Sheet ("Case 2: the application can send requests to any external address"):
 *
 * - https only, unless the operator allows http (`outbound.allow_http`);
 * - no user credentials in the URL;
 * - the host name is resolved and refused if ANY of its addresses is loopback, private,
 *   link-local, unique-local, multicast, unspecified, shared (CGNAT) or otherwise reserved —
 *   IPv4-mapped and other IPv4-embedding IPv6 forms included — unless the operator allow-lists
 *   the host name or a range holding the address (`outbound.allow`: intranet deployments, tests);
 * - no redirects: a 3xx is a failure (a redirect could lead anywhere, and each hop would need the
 *   same checks);
 * - a time limit until the response headers (DNS, connect, TLS, the server's first answer) and one
 *   for the whole exchange; a body read as a stream and cut off past a size cap;
 * - no cookies, no credentials, none of our own request's headers: only the headers a caller
 *   names (and, unless it names them, an Accept for any type, the runtime's User-Agent as fetch
 *   sends it, and `Accept-Encoding: identity`); when tracing is on, also the W3C `traceparent`
 *   of the request's own span (ops/tracing.ts), which carries ids and no secret.
 *
 * A refusal or failure is logged (purpose, client, host, resolved address, reason, status) and,
 * when the destination itself was refused, audited as `outbound_refused`. The OutboundError a
 * caller gets carries those details for its own log; what the client is told must stay generic
 * (no status, address or reason: they would turn the provider into a port scanner).
 *
 * The connection goes to an address that was checked (pinned.ts): the name is resolved once, here,
 * and the request connects to the first of the checked addresses with the name kept for TLS (SNI,
 * the certificate) and the Host header, so a second answer (DNS rebinding: public for the check,
 * 127.0.0.1 for the connection) is never asked for. A host name the operator allow-listed
 * (`outbound.allow`) is trusted as a name: it is resolved by the system when connecting. An
 * egress firewall in front of the provider remains the stronger fence (OWASP, "network layer").
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { IncomingMessage } from "node:http";
import { address_class, allow_list, allowed_address, host_key, parse_ip, type OutboundSettings } from "./addresses.ts";
import { response_headers, send_pinned } from "./pinned.ts";
import { record_event } from "../audit.ts";
import type { Provider } from "../provider.ts";
import type { JsonObject } from "../../store/types.ts";
import { annotate_span, trace_headers, traced } from "../ops/tracing.ts";

export type OutboundDetails = { host: string; address?: string; status?: number };

/**
 * Why an outbound request did not succeed. `refused`: the destination or the answer broke the
 * policy (scheme, address, redirect); `failed`: it could not be had (DNS, network, time, status,
 * size). The message is for logs only, never for a client.
 */
export class OutboundError extends Error {
  override name = "OutboundError";
  constructor(
    readonly kind: "refused" | "failed",
    readonly reason: string,
    readonly details: OutboundDetails,
  ) {
    super(reason);
  }
}

export type Resolver = (host: string) => Promise<string[]>;

/** All addresses of `host` (A and AAAA), as the system resolver answers them. */
export const system_resolver: Resolver = async (host) => (await lookup(host, { all: true })).map((entry) => entry.address);

/** The URL's scheme and form, before any network: https (or allowed http), no credentials. */
export function target_of(uri: string, settings: Pick<OutboundSettings, "allow_http">): URL {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new OutboundError("refused", "not an absolute URL", { host: "" });
  }
  const details = { host: url.host };
  if (url.protocol !== "https:" && !(url.protocol === "http:" && settings.allow_http)) {
    throw new OutboundError("refused", `scheme ${url.protocol} is not allowed${url.protocol === "http:" ? " (outbound.allow_http is off)" : ""}`, details);
  }
  if (url.username !== "" || url.password !== "") throw new OutboundError("refused", "the URL holds user credentials", details);
  return url;
}

/**
 * Resolves the URL's host and refuses it when any of its addresses is not public and not
 * allow-listed (OWASP: check every resolved address, not the first). Returns the addresses, the
 * only ones the request may connect to; none for a host name the allow-list names (trusted as a name).
 */
export async function check_destination(url: URL, allow: readonly string[], resolve: Resolver = system_resolver): Promise<string[]> {
  const list = allow_list(allow);
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  if (list.hosts.has(host_key(hostname))) return [];
  let addresses: string[];
  if (isIP(hostname) !== 0) addresses = [hostname];
  else {
    try {
      addresses = await resolve(hostname);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new OutboundError("failed", `the host name did not resolve (${typeof code === "string" ? code : "error"})`, { host: url.host });
    }
    if (addresses.length === 0) throw new OutboundError("failed", "the host name has no address", { host: url.host });
  }
  for (const address of addresses) {
    const bytes = parse_ip(address);
    if (bytes !== null && allowed_address(bytes, list)) continue;
    const kind = address_class(address);
    if (kind !== null) throw new OutboundError("refused", `address ${address} is ${kind} (not in outbound.allow)`, { host: url.host, address });
  }
  return addresses;
}

// ---------------------------------------------------------------------------------------------
// The request.

export type OutboundRequest = {
  /** What the URL is, for logs and audit: "jwks_uri", "backchannel_logout_uri"... */
  purpose: string;
  /** The client that registered the URL, when there is one. */
  client_id?: string | null;
  method?: "GET" | "POST";
  /** The only headers sent (nothing of the request being served is forwarded). */
  headers?: Record<string, string>;
  body?: string;
  /** Statuses that count as success; default [200]. */
  accept_status?: readonly number[];
  /** Body size cap in bytes; default outbound.max_bytes. 0 discards the body unread. */
  max_bytes?: number;
  /** Tests inject a resolver; the system's otherwise. It is asked once: the request connects to what it answered. */
  resolve?: Resolver;
  /** Tests: PEM certificates trusted instead of the system's (never from configuration). */
  ca?: string;
};

export type OutboundResponse = { status: number; headers: Headers; body: Uint8Array };

function timeout_error(phase: "headers" | "total", ms: number, host: string): OutboundError {
  return new OutboundError("failed", phase === "headers" ? `no response headers within ${ms} ms` : `no complete answer within ${ms} ms`, { host });
}

/** Rejects with the signal's reason when it aborts first (a DNS lookup takes no signal). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const on_abort = () => reject(signal.reason);
    signal.addEventListener("abort", on_abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", on_abort));
  });
}

async function read_capped(response: IncomingMessage, max_bytes: number, host: string, status: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max_bytes) {
      response.destroy();
      throw new OutboundError("failed", `the body is larger than ${max_bytes} bytes`, { host, status });
    }
    chunks.push(chunk);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

async function exchange(url: URL, request: OutboundRequest, settings: OutboundSettings): Promise<OutboundResponse> {
  const host = url.host;
  const total_ms = settings.timeout_ms;
  const headers_ms = Math.min(settings.connect_timeout_ms, total_ms);
  const controller = new AbortController();
  const total_timer = setTimeout(() => controller.abort(timeout_error("total", total_ms, host)), total_ms);
  const headers_timer = setTimeout(() => controller.abort(timeout_error("headers", headers_ms, host)), headers_ms);
  let address: string | undefined;
  try {
    const addresses = await abortable(check_destination(url, settings.allow, request.resolve), controller.signal);
    address = addresses[0];
    let response: IncomingMessage;
    try {
      // To the checked address only (pinned.ts); no redirects (OWASP): a 3xx is answered to us, not followed.
      response = await send_pinned(url, {
        method: request.method ?? "GET",
        headers: request.headers ?? {},
        body: request.body,
        address,
        signal: controller.signal,
        ca: request.ca,
      });
    } catch (error) {
      if (controller.signal.aborted) throw controller.signal.reason;
      const code = (error as { code?: unknown }).code;
      throw new OutboundError("failed", `no connection (${typeof code === "string" ? code : error instanceof Error ? error.name : "error"})`, { host, address });
    }
    clearTimeout(headers_timer);
    const status = response.statusCode ?? 0;
    const headers = response_headers(response);
    const cancel = () => void response.destroy();
    if (status >= 300 && status < 400) {
      cancel();
      throw new OutboundError("refused", `answered ${status}, a redirect (not followed)`, { host, address, status });
    }
    if (!(request.accept_status ?? [200]).includes(status)) {
      cancel();
      throw new OutboundError("failed", `answered ${status}`, { host, address, status });
    }
    const max_bytes = request.max_bytes ?? settings.max_bytes;
    if (max_bytes === 0) {
      cancel();
      return { status, headers, body: new Uint8Array(0) };
    }
    const declared = Number(headers.get("content-length") ?? "0");
    if (declared > max_bytes) {
      cancel();
      throw new OutboundError("failed", `the body is larger than ${max_bytes} bytes (content-length ${declared})`, { host, address, status });
    }
    try {
      return { status, headers, body: await read_capped(response, max_bytes, host, status) };
    } catch (error) {
      if (controller.signal.aborted) throw controller.signal.reason;
      throw error;
    }
  } catch (error) {
    if (error instanceof OutboundError) {
      if (error.details.address === undefined && address !== undefined) throw new OutboundError(error.kind, error.reason, { ...error.details, address });
      throw error;
    }
    throw new OutboundError("failed", `error (${error instanceof Error ? error.name : "unknown"})`, { host, address });
  } finally {
    clearTimeout(total_timer);
    clearTimeout(headers_timer);
  }
}

/** Logs the refusal or failure, and audits a refused destination. Never throws. */
async function report(idp: OutboundContext, request: OutboundRequest, error: OutboundError): Promise<void> {
  const { host, address, status } = error.details;
  idp.log({
    level: "warn",
    msg: error.kind === "refused" ? "outbound request refused" : "outbound request failed",
    purpose: request.purpose,
    client_id: request.client_id ?? null,
    host,
    ...(address === undefined ? {} : { address }),
    ...(status === undefined ? {} : { status }),
    reason: error.reason,
  });
  if (error.kind !== "refused") return;
  const details: JsonObject = { purpose: request.purpose, host, reason: error.reason };
  if (address !== undefined) details.address = address;
  if (status !== undefined) details.status = status;
  try {
    await record_event(idp, { type: "outbound_refused", outcome: "failure", client_id: request.client_id ?? null, details });
  } catch (audit_error) {
    idp.log({ level: "error", msg: "audit event not recorded", type: "outbound_refused", error: String(audit_error) });
  }
}

/** The request with the current span's `traceparent` (W3C Trace Context §3.2) among its headers; as it is when tracing is off. */
function with_trace_context(request: OutboundRequest): OutboundRequest {
  const context = trace_headers();
  return Object.keys(context).length === 0 ? request : { ...request, headers: { ...request.headers, ...context } };
}

/**
 * What the fence needs of the provider: its settings, log, store (the audit) and clock. A command
 * of the CLI, which has no running provider, passes these (src/cli/saml.ts).
 */
export type OutboundContext = Pick<Provider, "config" | "log" | "store" | "now">;

/**
 * Fetches `uri` for a client within the fence above. Resolves with the answer (status accepted,
 * body within the cap); rejects with an OutboundError, already logged (and audited when refused).
 */
export async function outbound_fetch(idp: OutboundContext, uri: string, request: OutboundRequest): Promise<OutboundResponse> {
  const settings = idp.config.outbound;
  try {
    const url = target_of(uri, settings);
    const attributes = { "server.address": url.hostname, "http.request.method": request.method ?? "GET", "idp.outbound.purpose": request.purpose };
    return await traced(
      `outbound ${request.purpose}`,
      attributes,
      async () => {
        const response = await exchange(url, with_trace_context(request), settings);
        annotate_span({ "http.response.status_code": response.status });
        return response;
      },
      "client",
    );
  } catch (error) {
    const failure = error instanceof OutboundError ? error : new OutboundError("failed", `error (${error instanceof Error ? error.name : "unknown"})`, { host: "" });
    await report(idp, request, failure);
    throw failure;
  }
}
