/**
 * Failed client authentications at /token, /revoke and /introspect: the `invalid_client` answers
 * of RFC 6749 §5.2 (clients/authentication.ts raises them; RFC 6749 §2.3 leaves the method to the server),
 * counted in fixed windows in the store so every instance shares them. RFC 6749 §10.10 and the
 * OWASP Authentication Cheat Sheet ("Protect Against Automated Attacks") ask for guessing to be
 * limited; a successful client is not what is limited. Over a limit: 429 (RFC 6585 §4) with
 * Retry-After, in the OAuth error shape (`temporarily_unavailable`, endpoints.ts), BEFORE the
 * secret or the assertion is checked, so a refused attempt learns nothing and costs no work.
 *
 * - per (client_id, address): after `auth_failures_per_client_ip` failures, that client_id from
 *   that address is refused until the window ends, even with the right secret (otherwise the
 *   429 would not stop the guessing: a 200 between 429s would tell the secret).
 * - per address: after `auth_failures_per_ip` failures for any client ids, every client
 *   authentication from that address is refused (one address spraying many client ids). Clients
 *   behind one address (a NAT, a proxy without trust_proxy) share this limit.
 * - per client_id, from all addresses: after `auth_failures_per_client`, an address that has
 *   itself failed for that client_id in the window is refused at once; addresses without a
 *   failure for it (the real client) are still served. The client_id alone is never locked:
 *   client ids are not secret (they travel in front-channel URLs), and a lockout keyed by one
 *   would let anyone who knows it keep the real client out by failing on purpose (OWASP
 *   Authentication Cheat Sheet, "Account Lockout": lockout as denial of service). The price: a
 *   guesser with many addresses gets one guess per address and window once the budget is spent.
 *   Client secrets this server issues are 256-bit random values (RFC 6749 §10.10 asks for at
 *   most 2^-128), so what these limits protect is the server's work and weak secrets, not the
 *   strength of issued ones.
 *
 * Successful traffic costs reads, not writes: two counter reads (the pair and the address) per
 * authentication while they hold no failures; a failure costs a write per counter. An address
 * that has failed (a counter row holds failures, until the purge deletes it after its window)
 * RESERVES its attempt first (store `reserve`, one atomic conditional increment) and gives it
 * back on success, so concurrent guesses from it never get past the limit (a check followed by a
 * later count would let every request in flight through: CWE-367, login.ts). The one
 * exception is the first burst from an address with no failure on record: the requests already
 * in flight when it fails for the first time are checked before they are counted; from its first
 * failure on, every attempt reserves.
 *
 * The counters are declared in counters.ts (`client_auth_failures_per_*`; hashed keys, no client
 * ids or addresses in the counters table). `IDP_RATE_LIMITS=off` turns these limits off with the
 * others.
 */
import { OAuthError } from "../errors.ts";
import type { Provider } from "../provider.ts";
import type { CounterState } from "../../store/types.ts";
import { count, COUNTERS, counting, peek, release, reserve, type Counter, type Reserved } from "./counters.ts";

/**
 * Refused until the window ends (`retry_after` seconds): 429 with Retry-After (RFC 6585 §4) in
 * the OAuth error shape (RFC 6749 §5.2). RFC 6749 defines no rate-limit code for these endpoints;
 * temporarily_unavailable is the registered code for "try again later" that clients already know.
 */
export class RateLimited extends OAuthError {
  constructor(description: string, retry_after: number) {
    const seconds = Math.max(1, Math.ceil(retry_after));
    super("temporarily_unavailable", `${description}; retry after ${seconds} seconds`, { retry_after: seconds });
  }
}

/** The outcome of one client authentication, reported back to its counters. Each attempt reports once. */
export type ClientAuthAttempt = {
  /** The client authenticated: reservations are given back, nothing is counted. */
  succeeded(): Promise<void>;
  /** invalid_client: counted against the pair, the address and the client_id. */
  failed(): Promise<void>;
  /** Neither (a malformed request, a store outage): reservations are given back. */
  abandoned(): Promise<void>;
};

const UNLIMITED: ClientAuthAttempt = { succeeded: async () => {}, failed: async () => {}, abandoned: async () => {} };

/** A counter of an attempt, for its parts: `held` is its reservation, null when it counts only on failure. */
type Place = { counter: Counter<"ip" | "client_id">; held: Reserved | null };

/** A counter whose window is still open, with failures in it. */
function open(state: CounterState | null, now: number): state is CounterState {
  return state !== null && state.reset_at > now && state.count > 0;
}

/**
 * Checks the failure counters of a client authentication from the address `ip()` claiming
 * `client_id` (null: none could be read) before it is verified; raises RateLimited when a limit is reached. The
 * caller reports the outcome on the returned attempt.
 */
export async function begin_client_auth(idp: Provider, ip: () => string, client_id: string | null): Promise<ClientAuthAttempt> {
  if (!counting(idp.config, COUNTERS.client_auth_failures_per_ip)) return UNLIMITED;
  const now = idp.now();
  const address = ip();
  const [pair, from_address] = await Promise.all([
    client_id === null ? null : peek(idp, COUNTERS.client_auth_failures_per_ip_client, { ip: address, client_id }),
    peek(idp, COUNTERS.client_auth_failures_per_ip, { ip: address }),
  ]);
  if (client_id !== null && open(pair, now)) {
    const client = await peek(idp, COUNTERS.client_auth_failures_per_client, { client_id });
    if (open(client, now) && client.count >= COUNTERS.client_auth_failures_per_client.limit.of(idp.config))
      throw new RateLimited("too many failed authentications for this client", pair.reset_at - now);
  }
  const limited: [Counter<"ip" | "client_id"> | null, CounterState | null, string][] = [
    [client_id === null ? null : COUNTERS.client_auth_failures_per_ip_client, pair, "for this client from this address"],
    [COUNTERS.client_auth_failures_per_ip, from_address, "from this address"],
  ];
  // The parts of every counter of this attempt (each key uses the ones its counter names).
  const parts = { ip: address, client_id: client_id ?? "" };
  const places: Place[] = [];
  try {
    for (const [counter, state, scope] of limited) {
      if (counter === null) continue;
      // No failure on record: nothing to reserve, the attempt is counted if it fails.
      if (state === null || state.count === 0) {
        places.push({ counter, held: null });
        continue;
      }
      const reserved = await reserve(idp, counter, parts, now);
      if (!reserved.allowed) throw new RateLimited(`too many failed client authentications ${scope}`, reserved.reset_at - now);
      places.push({ counter, held: reserved });
    }
  } catch (error) {
    await give_back(idp, places);
    throw error;
  }
  return {
    succeeded: () => give_back(idp, places),
    abandoned: () => give_back(idp, places),
    async failed() {
      const at = idp.now();
      await Promise.all([
        ...places.filter((place) => place.held === null).map((place) => count(idp, place.counter, parts, at)),
        client_id === null ? null : count(idp, COUNTERS.client_auth_failures_per_client, { client_id }, at),
      ]);
    },
  };
}

async function give_back(idp: Provider, places: Place[]): Promise<void> {
  await Promise.all(places.map((place) => (place.held === null ? null : release(idp, place.held))));
}
