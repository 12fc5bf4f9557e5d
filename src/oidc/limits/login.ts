/**
 * Slows down password guessing at the sign-in pages (OWASP Authentication Cheat Sheet, "Protect
 * Against Automated Attacks"; RFC 9700 does not cover it, NIST SP 800-63B §5.2.2 asks for it).
 * Failed attempts are counted in fixed windows in the store, so every instance shares the counts,
 * and every count ends with its window: nobody can be locked out for longer than one window.
 *
 * - per (address, username): after `max_failures`, 429 with Retry-After for both, even with the
 *   right password, until the window ends;
 * - per address: after `max_failures_per_ip` (any usernames), 429 for that address;
 * - per username, from any address: after `delay_after`, every attempt waits `delay_ms` before
 *   the password is checked. A username alone is never locked (429): an attacker could otherwise
 *   keep its owner out from their own address; slowing every guess is what stays possible.
 *
 * Reaching a 429 limit records a `login_locked` audit event (once per window). The counters are
 * declared in counters.ts (`login_failures_per_*`): hashed keys, and a username counts by its one
 * key, so every spelling of a name shares its counters.
 *
 * Each attempt RESERVES its place first, in one atomic conditional increment per limit
 * (store `reserve`), is VERIFIED second, and on success RELEASES what it reserved. A check
 * followed by a later count is a time-of-check/time-of-use race (CWE-367): N concurrent guesses
 * all pass the check before any is counted, and the lockout the OWASP Authentication Cheat Sheet
 * asks for ("Account Lockout") allows as many guesses as requests in flight. With the
 * reservation, at most `max_failures` password checks run per window and (address, username),
 * however many requests arrive at once on however many instances, and a refused attempt does no
 * password work at all.
 */
import { record_event } from "../audit.ts";
import { Throttled } from "../errors.ts";
import type { Provider } from "../provider.ts";
import { sleep } from "../../platform/runtime.ts";
import { clear, count, COUNTERS, release, reserve, type Counted, type Reserved } from "./counters.ts";

/** One attempt's places in the counters, from reserve_login_attempt to its outcome. */
export type LoginAttempt = { ip: string; username: string; pair: Reserved; address: Reserved; account: Counted };

const TOO_MANY = "Too many failed sign-in attempts. Wait a few minutes and try again.";

/**
 * Reserves one attempt in the (address, username) and address windows, or refuses (429) while
 * either is full, before any password work; then waits while the username is under attack.
 * Every reserved attempt must end in `login_attempt_failed` or `release_login_attempt`.
 */
export async function reserve_login_attempt(idp: Provider, ip: string, username: string): Promise<LoginAttempt> {
  const now = idp.now();
  const pair = await reserve(idp, COUNTERS.login_failures_per_ip_username, { ip, username }, now);
  if (!pair.allowed) throw new Throttled(TOO_MANY, pair.reset_at - now);
  const address = await reserve(idp, COUNTERS.login_failures_per_ip, { ip }, now);
  if (!address.allowed) {
    await release(idp, pair);
    throw new Throttled(TOO_MANY, address.reset_at - now);
  }
  // The username's count is never a 429 (see above): a plain hit, given back on success too. The
  // attempts before this one (failed or in flight) decide its wait.
  const account = await count(idp, COUNTERS.login_failures_per_username, { username }, now);
  const delay = account.count - 1 >= account.limit ? idp.config.login_throttle.delay_ms : 0;
  if (delay > 0) await sleep(delay);
  return { ip, username, pair, address, account };
}

/** The attempt failed: its reservations stay counted; the one that fills a 429 limit is audited. */
export async function login_attempt_failed(idp: Provider, attempt: LoginAttempt): Promise<void> {
  const { pair, address, ip, username } = attempt;
  const locked =
    pair.count === pair.limit ? { scope: "address_and_username", until: pair.reset_at } : address.count === address.limit ? { scope: "address", until: address.reset_at } : null;
  if (locked === null) return;
  const user = locked.scope === "address" || username === "" ? null : await idp.store.get_user_by_username(username);
  await record_event(idp, { type: "login_locked", outcome: "failure", user_id: user?.id ?? null, ip, details: locked });
}

/** The attempt succeeded (or was refused by a later limit): a correct password does not use up the budget, its reservations are given back. */
export async function release_login_attempt(idp: Provider, attempt: LoginAttempt): Promise<void> {
  await Promise.all([release(idp, attempt.pair), release(idp, attempt.address), release(idp, attempt.account)]);
}

/** A successful login clears the (address, username) count; the address and username counts keep running. */
export async function clear_login_failures(idp: Provider, ip: string, username: string): Promise<void> {
  await clear(idp, COUNTERS.login_failures_per_ip_username, { ip, username });
}

/**
 * An attempt with a secret nobody can guess (an LDAP service account's 256-bit password,
 * ldap/binds.ts) counts against its address only, in the sign-in page's address window: an
 * address guessing service passwords is refused like one guessing users' (429 words, the
 * `login_locked` audit), and nobody can slow or lock a service account from elsewhere.
 */
export async function reserve_address_attempt(idp: Provider, ip: string): Promise<Reserved> {
  const now = idp.now();
  const address = await reserve(idp, COUNTERS.login_failures_per_ip, { ip }, now);
  if (!address.allowed) throw new Throttled(TOO_MANY, address.reset_at - now);
  return address;
}

/** The address attempt failed: it stays counted; the one that fills the window is audited. */
export async function address_attempt_failed(idp: Provider, ip: string, address: Reserved): Promise<void> {
  if (address.count === address.limit) await record_event(idp, { type: "login_locked", outcome: "failure", ip, details: { scope: "address", until: address.reset_at } });
}

/** The address attempt succeeded: it is given back. */
export async function release_address_attempt(idp: Provider, address: Reserved): Promise<void> {
  await release(idp, address);
}
