/**
 * Who may call the registration endpoints. Tokens arrive as `Authorization: Bearer` (RFC 6750
 * §2.1) and are found by their SHA-256, like every token of this provider; failures are 401
 * invalid_token with a Bearer challenge (RFC 6750 §3).
 *
 * - POST /register, policy "token": an initial access token made with `registration-token
 *   create` (RFC 7591 §3). It registers clients until it expires (24 hours unless made with
 *   another lifetime) and, when made with a number of uses, at most that many: each successful
 *   registration takes one use atomically in the store, so N concurrent requests on the last use
 *   register one client.
 * - /register/:client_id: the registration access token issued with that client (RFC 7592 §1).
 * - POST /register, policy "open": anyone, but each address at most
 *   `rate_limits.register_per_ip_per_day` times a day (`count_anonymous_registration`), and the
 *   clients it makes are marked anonymous: never used, they expire (unused_clients.ts).
 */
import { bearer_credentials } from "../tokens/bearer.ts";
import { RateLimited } from "../limits/client_auth.ts";
import { count, COUNTERS, counting } from "../limits/counters.ts";
import { sha256 } from "../crypto/secrets.ts";
import { BearerError } from "../errors.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow, InitialAccessTokenRow } from "../../store/types.ts";

/** The Bearer token of the request; a challenge without error code when there is none (§3.1). */
function bearer_token(idp: Provider, authorization: string | null, what: string): string {
  const token = bearer_credentials(authorization, idp.config.issuer);
  if (token === null) throw new BearerError(null, `${what} is required`, idp.config.issuer);
  return token;
}

/** RFC 6750 §3.1: 401 invalid_token, saying why this (absent, expired or used up) token is refused. */
function refused_initial_access_token(idp: Provider, row: InitialAccessTokenRow | null): BearerError {
  const reason = row === null ? "invalid" : row.expires_at !== null && row.expires_at <= idp.now() ? "expired" : row.uses_left === 0 ? "used up" : "invalid";
  return new BearerError("invalid_token", `the initial access token is ${reason}`, idp.config.issuer);
}

/**
 * RFC 7591 §3: checks the initial access token of a registration request, before its metadata is
 * read; returns its hash for `use_initial_access_token`. Takes no use: a request refused for its
 * metadata (400) does not spend one.
 */
export async function check_initial_access_token(idp: Provider, authorization: string | null): Promise<string> {
  const token_hash = sha256(bearer_token(idp, authorization, "an initial access token"));
  const row = await idp.store.find_initial_access_token(token_hash);
  const live = row !== null && (row.expires_at === null || row.expires_at > idp.now()) && row.uses_left !== 0;
  if (!live) throw refused_initial_access_token(idp, row);
  return token_hash;
}

/**
 * Takes one use of the checked token, atomically in the store, just before the client is
 * created; 401 invalid_token when another request took the last use (or it expired) meanwhile.
 * Returns the token's id, for the audit record of the registration.
 */
export async function use_initial_access_token(idp: Provider, token_hash: string): Promise<string> {
  const row = await idp.store.use_initial_access_token(token_hash, idp.now());
  if (row === null) throw refused_initial_access_token(idp, await idp.store.find_initial_access_token(token_hash));
  return row.id;
}

/**
 * RFC 7592 §2.1-2.3: the client whose registration access token this is, when it is the client of
 * the URL. The same answer whether the client exists or the token is wrong, so the endpoint does
 * not tell which client_ids exist.
 */
export async function client_for_registration_token(idp: Provider, authorization: string | null, client_id: string): Promise<{ client: ClientRow; token: string }> {
  const token = bearer_token(idp, authorization, "the registration access token");
  const client = await idp.store.get_client_by_registration_token_hash(sha256(token));
  if (client === null || client.client_id !== client_id) throw invalid_registration_token(idp);
  return { client, token };
}

/** 401 invalid_token for a registration access token that does not (or no longer) fit. */
export function invalid_registration_token(idp: Provider): BearerError {
  return new BearerError("invalid_token", "the registration access token is invalid for this client", idp.config.issuer);
}

/**
 * One more registration without an initial access token from the address `ip` today (counter
 * `anonymous_registrations_per_ip`, a fixed 24-hour window); 429 `temporarily_unavailable` with
 * Retry-After past `rate_limits.register_per_ip_per_day` (RFC 7591 §3 lets a server refuse
 * anonymous registrations; a quota keeps one address from filling the store). Counted before the
 * metadata is read, so a refused request costs one counter write.
 */
export async function count_anonymous_registration(idp: Provider, ip: string): Promise<void> {
  const counter = COUNTERS.anonymous_registrations_per_ip;
  if (!counting(idp.config, counter)) return;
  const now = idp.now();
  const state = await count(idp, counter, { ip }, now);
  if (state.over) throw new RateLimited("too many registrations from this address today", state.reset_at - now);
}
