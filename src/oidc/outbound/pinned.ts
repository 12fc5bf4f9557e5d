/**
 * One HTTP exchange with the address the fence checked (fetch.ts), so that a second DNS answer
 * cannot send the connection elsewhere (DNS rebinding: a name that resolves to a public address
 * for the check and to 127.0.0.1 or 169.254.169.254 for the connection).
 *
 * Web `fetch` resolves the name itself and offers no way to choose the address, so the request
 * goes through node:http / node:https (Bun and Deno provide both) with a `lookup` function that
 * answers the checked address and nothing else. The URL's host name stays the name: TLS sends it
 * as SNI and checks the certificate against it, and it is the `Host` header (RFC 9110 §7.2).
 * Redirects are not followed (node:http never does); no cookies, no compression asked for.
 */
import { request as http_request, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as https_request } from "node:https";
import { isIP, type LookupFunction } from "node:net";

export type PinnedRequest = {
  method: "GET" | "POST";
  /** The only headers sent, besides Host, Content-Length and the defaults below. */
  headers: Record<string, string>;
  body?: string | undefined;
  /** The checked address to connect to; absent: the system resolves the name (an allow-listed name). */
  address?: string | undefined;
  /** Aborting destroys the connection; the exchange then rejects with the signal's reason. */
  signal: AbortSignal;
  /** Tests: PEM certificates trusted instead of the system's. */
  ca?: string | undefined;
};

/** A `lookup` that answers `address` for any name, in either form node:net asks for. */
export function pinned_lookup(address: string): LookupFunction {
  const family = isIP(address);
  const lookup = (
    _host: string,
    options: { all?: boolean } | undefined,
    callback: (error: Error | null, address: string | { address: string; family: number }[], family?: number) => void,
  ) => {
    if (options?.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  return lookup as unknown as LookupFunction;
}

/** The request's headers: the caller's, with defaults a web fetch would have sent, and no content coding. */
function headers_of(url: URL, request: PinnedRequest): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { accept: "*/*", "user-agent": globalThis.navigator?.userAgent ?? "idp", "accept-encoding": "identity" };
  for (const [name, value] of Object.entries(request.headers)) out[name.toLowerCase()] = value;
  out.host = url.host;
  if (request.body !== undefined) out["content-length"] = String(Buffer.byteLength(request.body));
  return out;
}

/** Sends the request to the pinned address; resolves with the response once its headers are in. */
export function send_pinned(url: URL, request: PinnedRequest): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    if (request.signal.aborted) return reject(request.signal.reason);
    const hostname = url.hostname.replace(/^\[|\]$/g, "");
    const https = url.protocol === "https:";
    const options = {
      method: request.method,
      hostname,
      port: url.port === "" ? (https ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: headers_of(url, request),
      agent: false as const,
      ...(request.address === undefined ? {} : { lookup: pinned_lookup(request.address) }),
      // SNI is a host name, never an address (RFC 6066 §3); the certificate is checked against the name.
      ...(https && isIP(hostname) === 0 ? { servername: hostname } : {}),
      ...(https && request.ca !== undefined ? { ca: request.ca } : {}),
    };
    const req = (https ? https_request : http_request)(options, (response) => {
      request.signal.removeEventListener("abort", abort);
      // Whoever reads the body sees the error; without a reader it must not become an uncaught one.
      response.on("error", () => {});
      request.signal.addEventListener("abort", () => response.destroy(request.signal.reason as Error), { once: true });
      resolve(response);
    });
    const abort = () => req.destroy(request.signal.reason as Error);
    request.signal.addEventListener("abort", abort, { once: true });
    req.on("error", (error) => {
      request.signal.removeEventListener("abort", abort);
      reject(request.signal.aborted ? request.signal.reason : error);
    });
    req.end(request.body);
  });
}

/** The response's headers as web Headers (repeated fields appended; a value Headers refuses is left out). */
export function response_headers(response: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // Not a valid field value for Headers (control characters): nothing we read needs it.
    }
  }
  return headers;
}
