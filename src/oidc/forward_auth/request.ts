/**
 * The request a reverse proxy asks about, read from the headers it sets on its subrequest. Two
 * conventions, one per mode, and each mode reads only its own headers, the ones its proxy
 * overwrites: a header of the other convention may have been sent by the client itself (Caddy
 * and Traefik pass the client's other headers through), so it is never read.
 *
 * - `forward` (Caddy `forward_auth`, Traefik `ForwardAuth`): `X-Forwarded-Proto`,
 *   `X-Forwarded-Host`, `X-Forwarded-Uri` and `X-Forwarded-Method`.
 * - `nginx` (`auth_request`, `?mode=nginx`): `X-Original-URL` (the whole URL) and
 *   `X-Original-Method`.
 *
 * The path the rules compare (policy.ts) is the path as the application will understand it:
 * WHATWG URL parsing resolves dot segments (also `%2e`), then percent-escapes are decoded,
 * dot segments that decoding revealed (`%2F..%2F`) are resolved again and repeated slashes are
 * folded, so `/public/%2e%2e/admin`, `/public%2F..%2Fadmin` and `//admin` are all `/admin`.
 */

export type ForwardMode = "forward" | "nginx";

/** What a header getter returns: the proxy's value, or null when it sent none. */
export type HeaderReader = { get(name: string): string | null };

export type OriginalRequest = {
  method: string;
  /** Lower case, with a port that is not the scheme's default. */
  host: string;
  /** The path to compare (see above). */
  path: string;
  /** The path and query as sent, for the way back after a sign-in. */
  uri: string;
};

/** Why the proxy's headers do not describe a request; its message is for the log and the page. */
export class ForwardHeadersError extends Error {}

const METHOD = /^[A-Z]{1,16}$/;
/** A Host header value (RFC 9110 §7.2): a name or IPv4 address, or a bracketed IPv6 address, and an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
/** An origin-form request target (RFC 9112 §3.2.1): visible ASCII, starting with "/". */
const URI = /^\/[\x21-\x7e]*$/;
const MAX_URI = 8192;

/** The proxy's request as `mode` describes it; raises ForwardHeadersError naming the header that is missing or malformed. */
export function original_request(mode: ForwardMode, headers: HeaderReader): OriginalRequest {
  if (mode === "nginx") {
    const full = required(headers, "X-Original-URL");
    if (full.length > MAX_URI || !/^https?:\/\/[\x21-\x7e]+$/.test(full)) throw new ForwardHeadersError("X-Original-URL is not an absolute http(s) URL");
    const at = full.indexOf("/", full.indexOf("//") + 2);
    const authority = at === -1 ? full.slice(full.indexOf("//") + 2) : full.slice(full.indexOf("//") + 2, at);
    return build(full.slice(0, full.indexOf(":")), authority, at === -1 ? "/" : full.slice(at), method_of(headers.get("x-original-method")), "X-Original-URL");
  }
  const proto = required(headers, "X-Forwarded-Proto").toLowerCase();
  if (proto !== "http" && proto !== "https") throw new ForwardHeadersError(`X-Forwarded-Proto "${clip(proto)}" is neither http nor https`);
  return build(proto, required(headers, "X-Forwarded-Host"), headers.get("x-forwarded-uri") ?? "/", method_of(headers.get("x-forwarded-method")), "X-Forwarded-Uri");
}

/** A header the mode needs (`name` as the docs spell it); its value trimmed. */
function required(headers: HeaderReader, name: string): string {
  const value = headers.get(name)?.trim();
  if (value === undefined || value === "") throw new ForwardHeadersError(`the proxy sent no ${name} header`);
  return value;
}

function method_of(value: string | null): string {
  const method = (value ?? "GET").trim().toUpperCase();
  return METHOD.test(method) ? method : "GET";
}

function clip(value: string): string {
  return value.length > 100 ? `${value.slice(0, 100)}…` : value;
}

function build(scheme: string, host: string, uri: string, method: string, uri_header: string): OriginalRequest {
  if (!HOST.test(host)) throw new ForwardHeadersError(`the host "${clip(host)}" is not a host name with an optional port`);
  if (uri.length > MAX_URI || !URI.test(uri)) throw new ForwardHeadersError(`${uri_header} is not a path starting with /`);
  let url: URL;
  try {
    // The authority was checked above, so the URI cannot move the request to another host.
    url = new URL(`${scheme}://${host}${uri.startsWith("//") ? `/${uri.replace(/^\/+/, "")}` : uri}`);
  } catch {
    throw new ForwardHeadersError(`the URL of the request (${clip(uri)}) does not parse`);
  }
  const path = decoded_path(url.pathname);
  if (path === null) throw new ForwardHeadersError(`${uri_header} has a malformed percent-encoding`);
  return { method, host: url.host.toLowerCase(), path, uri: `${url.pathname}${url.search}` };
}

/** RFC 3986 §5.2.4 on "/"-separated segments; the result starts with "/". */
function without_dot_segments(path: string): string {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") out.pop();
    else out.push(segment);
  }
  return `/${out.join("/")}${path.endsWith("/") && out.length > 0 ? "/" : ""}`;
}

/** The path to compare: decoded, without dot segments or repeated slashes; null when an escape is not UTF-8. */
export function decoded_path(pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  // A backslash is a slash to many servers (and to WHATWG URL in http URLs).
  return without_dot_segments(decoded.replaceAll("\\", "/"));
}

/** The mode a `mode` query parameter names: absent is `forward`; null for anything else. */
export function forward_mode(value: string | undefined): ForwardMode | null {
  if (value === undefined || value === "" || value === "forward") return "forward";
  return value === "nginx" ? "nginx" : null;
}
