/**
 * Request rate limits of the endpoints clients call: /token, /revoke, /introspect and the
 * registration endpoints (/register, /register/:client_id), applied before the endpoint runs.
 * RFC 6749 §10.10 asks for protection against credential guessing, RFC 7662 §4 against token
 * scanning; neither asks to slow a client that authenticates. So the defaults target abuse only:
 *
 * - Failed client authentications (RFC 6749 §2.3, invalid_client of §5.2) per client_id and per
 *   address: client_auth.ts, checked where the client is authenticated. On by default.
 * - Unauthenticated bursts: requests to /token, /revoke and /introspect that carry no client
 *   credentials (a public client, or none at all), per address, `unauthenticated_per_ip` in one
 *   window shared by the three endpoints. On by default, generous: public clients (browser and
 *   native apps) redeem codes and refresh tokens without authenticating. A request WITH
 *   credentials is not counted here: if they are wrong, the failure limits count it.
 * - Registration (RFC 7591, RFC 7592): `register_per_ip` per address at /register (no client
 *   yet, no authentication by default) and `register_per_client` per client_id at
 *   /register/:client_id. On by default; registration is rare and open to anyone.
 * - Request quotas per endpoint, per CLAIMED client_id (from the Basic header, else the form's
 *   client_id, else the `sub` of a client_assertion, read without authenticating it) and per
 *   address: `token_per_client`, `token_per_ip`, `revoke_*`, `introspect_*`. OFF by default
 *   (0): a busy confidential client is a customer, not an attacker; an operator who sells or
 *   shares capacity sets them.
 *
 * Over a limit: 429 (RFC 6585 §4) with Retry-After, in the OAuth error shape (RFC 6749 §5.2),
 * `{"error":"temporarily_unavailable", ...}` (RateLimited, client_auth.ts). Counters are
 * fixed windows in the store (every instance shares them), declared in counters.ts with hashed
 * keys (no client ids or addresses in the counters table). With the defaults an authenticated
 * request costs no counter write; a counted one costs one per counter. `IDP_RATE_LIMITS=off` turns every limit off
 * (benchmarks, or a reverse proxy that limits instead).
 */
import type { Config } from "../../config/schema.ts";
import { RateLimited } from "./client_auth.ts";
import { count, COUNTERS, counting, type Counted, type Counter, type LimitedEndpoint } from "./counters.ts";
import { PATHS } from "../discovery/paths.ts";
import type { Provider } from "../provider.ts";

export { carries_credentials, claimed_client_id } from "../clients/authentication.ts";
export type { LimitedEndpoint } from "./counters.ts";

/** The limited endpoint a path belongs to, or null. */
export function limited_endpoint(path: string): LimitedEndpoint | null {
  switch (path) {
    case PATHS.token:
    // RFC 9126 §2: the PAR endpoint authenticates clients as /token does, and shares its limits.
    case PATHS.par:
    // RFC 8628 §3.1: so does the device authorization endpoint.
    case PATHS.device_authorization:
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

/** The request quotas of each endpoint (counters.ts). */
const QUOTAS: Record<LimitedEndpoint, { per_client: Counter<"client_id">; per_ip: Counter<"ip"> }> = {
  token: { per_client: COUNTERS.token_requests_per_client, per_ip: COUNTERS.token_requests_per_ip },
  revoke: { per_client: COUNTERS.revoke_requests_per_client, per_ip: COUNTERS.revoke_requests_per_ip },
  introspect: { per_client: COUNTERS.introspect_requests_per_client, per_ip: COUNTERS.introspect_requests_per_ip },
  register: { per_client: COUNTERS.register_requests_per_client, per_ip: COUNTERS.register_requests_per_ip },
};

/** True when `endpoint` has a quota per claimed client_id (so the middleware must find the client_id). */
export function counts_per_client(config: Config, endpoint: LimitedEndpoint): boolean {
  return counting(config, QUOTAS[endpoint].per_client);
}

/** True when a request to `endpoint` may be counted by `count_request`: a quota is set, or it could be unauthenticated. */
export function counts_requests(config: Config, endpoint: LimitedEndpoint): boolean {
  return counts_per_client(config, endpoint) || counting(config, QUOTAS[endpoint].per_ip) || endpoint !== "register";
}

/**
 * Counts one request to `endpoint` from the address `ip()` claiming `client_id` (null: none)
 * against the quotas that are set, and, when it carries no client credentials
 * (`with_credentials` false; /token, /revoke, /introspect), against the unauthenticated limit of its
 * address; raises RateLimited when a count is over its limit. The address is asked for only
 * when a counter needs it.
 */
export async function count_request(idp: Provider, endpoint: LimitedEndpoint, ip: () => string, client_id: string | null, with_credentials: boolean): Promise<void> {
  const config = idp.config;
  const now = idp.now();
  const { per_client, per_ip } = QUOTAS[endpoint];
  const counted: { hit: () => Promise<Counted>; what: string }[] = [];
  if (counting(config, per_client) && client_id !== null)
    counted.push({ hit: () => count(idp, per_client, { client_id }, now), what: `too many ${endpoint} requests for this client` });
  if (counting(config, per_ip)) counted.push({ hit: () => count(idp, per_ip, { ip: ip() }, now), what: `too many ${endpoint} requests from this address` });
  if (!with_credentials && endpoint !== "register")
    counted.push({ hit: () => count(idp, COUNTERS.unauthenticated_requests_per_ip, { ip: ip() }, now), what: "too many requests without client authentication from this address" });
  if (counted.length === 0) return;
  const states = await Promise.all(counted.map(({ hit }) => hit()));
  counted.forEach(({ what }, i) => {
    const state = states[i]!;
    if (state.over) throw new RateLimited(what, state.reset_at - now);
  });
}
