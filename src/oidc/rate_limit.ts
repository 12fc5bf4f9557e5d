/**
 * Request rate limits of the endpoints clients call: /token, /revoke, /introspect and the
 * registration endpoints (/register, /register/:client_id). RFC 9700 §4.x leaves abuse limits to
 * the server; RFC 6749 §10.10 asks for protection against credential guessing at /token, and
 * RFC 7662 §4 against token scanning at /introspect.
 *
 * - Two fixed-window counters per request, in the store (so every instance shares them): one per
 *   client address (proxy.ts client_ip) and one per CLAIMED client_id — from the Basic header,
 *   else the form's client_id, else the `sub` of a client_assertion, else (RFC 7592) the path —
 *   read without authenticating it, so guessing one client's secret is limited however many
 *   addresses it comes from. /register has no client yet: the address alone counts.
 * - Over a limit: 429 (RFC 6585 §4) with Retry-After, in the OAuth error shape (RFC 6749 §5.2),
 *   `{"error":"temporarily_unavailable", ...}`. RFC 6749 defines no rate-limit code for these
 *   endpoints; temporarily_unavailable is the registered code for "try again later" that clients
 *   already know, and the status and Retry-After say the rest.
 * - Keys are hashed (no client ids or addresses in the counters table). Each limited request
 *   costs two counter writes; `IDP_RATE_LIMITS=off` turns the limits off (benchmarks, or a
 *   reverse proxy that limits instead).
 */
import { decodeJwt } from "jose";
import { parse_basic } from "./client_auth.ts";
import type { Config } from "../config/schema.ts";
import { sha256 } from "./crypto/secrets.ts";
import { OAuthError } from "./errors.ts";
import { PATHS } from "./metadata.ts";
import type { Provider } from "./provider.ts";

export type LimitedEndpoint = "token" | "revoke" | "introspect" | "register";

export type RateLimits = Config["rate_limits"];

/** The limited endpoint a path belongs to, or null. */
export function limited_endpoint(path: string): LimitedEndpoint | null {
  switch (path) {
    case PATHS.token:
      return "token";
    case PATHS.revoke:
      return "revoke";
    case PATHS.introspect:
      return "introspect";
    case PATHS.register:
      return "register";
    default:
      return path.startsWith(`${PATHS.register}/`) ? "register" : null;
  }
}

/** The limits of one endpoint, per window. */
export function limits_of(config: RateLimits, endpoint: LimitedEndpoint): { per_client: number; per_ip: number } {
  return { per_client: config[`${endpoint}_per_client`], per_ip: config[`${endpoint}_per_ip`] };
}

/**
 * The client a request says it comes from, unauthenticated: Basic credentials (RFC 6749 §2.3.1),
 * else the form's client_id, else the sub of a client assertion (RFC 7523 §3). Null when none.
 */
export function claimed_client_id(authorization: string | null, form: Record<string, unknown> | null): string | null {
  const basic = parse_basic(authorization);
  if (basic !== null && basic !== "malformed" && basic.client_id !== "") return basic.client_id;
  if (form === null) return null;
  const client_id = first(form.client_id);
  if (client_id !== null && client_id !== "") return client_id;
  const assertion = first(form.client_assertion);
  if (assertion === null) return null;
  try {
    const sub = decodeJwt(assertion).sub;
    return typeof sub === "string" && sub !== "" ? sub : null;
  } catch {
    return null;
  }
}

/** The first value of a parsed form field (a repeated key is an array), null when absent. */
function first(value: unknown): string | null {
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === "string" ? one : null;
}

/** Refused until the window ends (`retry_after` seconds): 429 with Retry-After in the OAuth error shape. */
export class RateLimited extends OAuthError {
  constructor(description: string, retry_after: number) {
    const seconds = Math.max(1, Math.ceil(retry_after));
    super("temporarily_unavailable", `${description}; retry after ${seconds} seconds`, { retry_after: seconds });
  }
}

/**
 * Counts one request to `endpoint` from `ip` claiming `client_id` (null: none); raises
 * RateLimited when either count is over its limit.
 */
export async function count_request(idp: Provider, endpoint: LimitedEndpoint, ip: string, client_id: string | null): Promise<void> {
  const config = idp.config.rate_limits;
  const now = idp.now();
  const window = config.window_seconds;
  const { per_client, per_ip } = limits_of(config, endpoint);
  const [address, client] = await Promise.all([
    idp.store.hit(`rl:${endpoint}:a:${sha256(ip)}`, window, now),
    client_id === null ? null : idp.store.hit(`rl:${endpoint}:c:${sha256(client_id)}`, window, now),
  ]);
  if (client !== null && client.count > per_client) throw new RateLimited(`too many ${endpoint} requests for this client`, client.reset_at - now);
  if (address.count > per_ip) throw new RateLimited(`too many ${endpoint} requests from this address`, address.reset_at - now);
}
