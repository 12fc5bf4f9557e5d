/**
 * Running behind a reverse proxy. With `trust_proxy` off (the default) the forwarding headers
 * are ignored: anyone can send them. With it on, exactly ONE trusted proxy is assumed in front
 * (nginx, Caddy, a load balancer) and the client address is the right-most `X-Forwarded-For`
 * entry: the one that proxy appended. Entries to its left were sent by the client and can be
 * forged, so they are never used.
 *
 * `X-Forwarded-Proto` and `X-Forwarded-Host` are never read, in either mode: every URL the
 * provider prints (discovery, redirects, form actions) derives from the configured issuer.
 */
import { isIP } from "node:net";
import type { Context } from "../../fw/index.ts";
import type { Config } from "../../config/schema.ts";

/** "203.0.113.7", "2001:db8::1" or "[2001:db8::1]" → the address; anything else → null. */
function parse_address(entry: string): string | null {
  const value = entry.trim().replace(/^\[(.*)\]$/, "$1");
  return isIP(value) === 0 ? null : value;
}

/**
 * The address of the client for rate limiting and the audit log: the socket's, or with
 * `trust_proxy` the right-most X-Forwarded-For entry. A missing or malformed header (a proxy
 * that does not set it) falls back to the socket address, which is then the proxy's.
 */
export function client_ip(context: Pick<Context, "request" | "headers">, config: Pick<Config, "trust_proxy">): string {
  const socket = context.request.ip;
  if (!config.trust_proxy) return socket;
  // Several header lines are joined with ", " by Headers.get, so the last entry is still ours.
  const forwarded = context.headers.get("x-forwarded-for");
  if (forwarded === null) return socket;
  return parse_address(forwarded.split(",").at(-1) ?? "") ?? socket;
}
