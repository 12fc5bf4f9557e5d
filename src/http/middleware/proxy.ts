/**
 * Running behind reverse proxies. With `trust_proxy` off (the default) the forwarding headers
 * are ignored: anyone can send them. With it on, `X-Forwarded-For` is read only when the
 * connection comes from a trusted proxy (`trusted_proxies`: loopback by default, for nginx or
 * Caddy on the same host). Its entries are walked from the right — each was appended by the hop
 * to its right — past every trusted hop; the first address that is not a trusted proxy is the
 * client's. Entries to the left of it were sent by that client and can be forged, so they are
 * never used; a peer that is not a trusted proxy (someone reaching the port directly) is the
 * client itself, whatever it sends.
 *
 * `X-Forwarded-Proto` and `X-Forwarded-Host` are never read for the provider's own URLs: every URL
 * it prints (discovery, redirects, form actions) derives from the configured issuer. Only the
 * forward-auth check reads them, as the description of the proxied request it is asked about,
 * and only from a trusted proxy (`from_trusted_proxy`).
 */
import { isIP } from "node:net";
import type { Context } from "../../fw/index.ts";
import type { Config } from "../../config/schema.ts";
import { allow_list, allowed_address, parse_ip } from "../../oidc/outbound/addresses.ts";

/** "203.0.113.7", "2001:db8::1" or "[2001:db8::1]" → the address; anything else → null. */
function parse_address(entry: string): string | null {
  const value = entry.trim().replace(/^\[(.*)\]$/, "$1");
  return isIP(value) === 0 ? null : value;
}

function is_trusted(address: string, trusted: readonly string[]): boolean {
  const bytes = parse_ip(address);
  return bytes !== null && allowed_address(bytes, allow_list(trusted));
}

/**
 * The address of the client for rate limiting and the audit log: the socket's, or with
 * `trust_proxy` and a trusted peer, the right-most `X-Forwarded-For` entry that is not itself a
 * trusted proxy. A missing or malformed entry stops the walk at the last hop known: the address
 * of the proxy that failed to say.
 */
export function client_ip(context: Pick<Context, "request" | "headers">, config: Pick<Config, "trust_proxy" | "trusted_proxies">): string {
  let address = context.request.ip;
  if (!config.trust_proxy || !is_trusted(address, config.trusted_proxies)) return address;
  // Several header lines are joined with ", " by Headers.get: their entries stay in order.
  const forwarded = context.headers.get("x-forwarded-for");
  if (forwarded === null) return address;
  const entries = forwarded.split(",");
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = parse_address(entries[i]!);
    if (entry === null) return address;
    address = entry;
    if (!is_trusted(address, config.trusted_proxies)) return address;
  }
  return address;
}

/**
 * Whether the connection comes from a trusted proxy (`trust_proxy` on and the peer in
 * `trusted_proxies`): only then may a request describe another one in its headers
 * (forward authentication, oidc/forward_auth/request.ts).
 */
export function from_trusted_proxy(context: Pick<Context, "request">, config: Pick<Config, "trust_proxy" | "trusted_proxies">): boolean {
  return config.trust_proxy && is_trusted(context.request.ip, config.trusted_proxies);
}
