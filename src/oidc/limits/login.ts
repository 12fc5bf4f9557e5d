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
 * Reaching a 429 limit records a `login_locked` audit event (once per window). Counter keys are
 * hashed: no usernames or addresses in the counters table; the username in them is its one key
 * (store/usernames.ts), so every spelling of a name shares its counters.
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
import type { Config } from "../../config/schema.ts";
import { sha256 } from "../crypto/secrets.ts";
import type { Provider } from "../provider.ts";
import { sleep } from "../../platform/runtime.ts";
import { username_key } from "../../store/usernames.ts";
import type { CounterState } from "../../store/types.ts";

export type LoginThrottle = Config["login_throttle"];

type Keys = { pair: string; address: string; account: string };

function keys(ip: string, username: string): Keys {
  const name = username_key(username);
  return { pair: `login:ua:${sha256(`${ip}\n${name}`)}`, address: `login:a:${sha256(ip)}`, account: `login:u:${sha256(name)}` };
}

/** How long an attempt for a username waits, given that username's failures in the window. */
export function login_delay_ms(failures: number, rules: LoginThrottle): number {
  return failures >= rules.delay_after ? rules.delay_ms : 0;
}

/** One attempt's places in the counters, from reserve_login_attempt to its outcome. */
export type LoginAttempt = { ip: string; username: string; keys: Keys; pair: CounterState; address: CounterState; account: CounterState };

const TOO_MANY = "Too many failed sign-in attempts. Wait a few minutes and try again.";

/**
 * Reserves one attempt in the (address, username) and address windows, or refuses (429) while
 * either is full, before any password work; then waits while the username is under attack.
 * Every reserved attempt must end in `login_attempt_failed` or `release_login_attempt`.
 */
export async function reserve_login_attempt(idp: Provider, ip: string, username: string): Promise<LoginAttempt> {
  const now = idp.now();
  const rules = idp.config.login_throttle;
  const window = rules.window_seconds;
  const k = keys(ip, username);
  const pair = await idp.store.reserve(k.pair, rules.max_failures, window, now);
  if (!pair.allowed) throw new Throttled(TOO_MANY, pair.reset_at - now);
  const address = await idp.store.reserve(k.address, rules.max_failures_per_ip, window, now);
  if (!address.allowed) {
    await idp.store.release(k.pair, pair.reset_at);
    throw new Throttled(TOO_MANY, address.reset_at - now);
  }
  // The username's count is never a 429 (see above): a plain hit, given back on success too. The
  // attempts before this one (failed or in flight) decide its wait.
  const account = await idp.store.hit(k.account, window, now);
  const delay = login_delay_ms(account.count - 1, rules);
  if (delay > 0) await sleep(delay);
  return { ip, username, keys: k, pair, address, account };
}

/** The attempt failed: its reservations stay counted; the one that fills a 429 limit is audited. */
export async function login_attempt_failed(idp: Provider, attempt: LoginAttempt): Promise<void> {
  const rules = idp.config.login_throttle;
  const { pair, address, ip, username } = attempt;
  const locked = pair.count === rules.max_failures ? { scope: "address_and_username", until: pair.reset_at } : address.count === rules.max_failures_per_ip ? { scope: "address", until: address.reset_at } : null;
  if (locked === null) return;
  const user = locked.scope === "address" || username === "" ? null : await idp.store.get_user_by_username(username);
  await record_event(idp, { type: "login_locked", outcome: "failure", user_id: user?.id ?? null, ip, details: locked });
}

/** The attempt succeeded (or was refused by a later limit): a correct password does not use up the budget, its reservations are given back. */
export async function release_login_attempt(idp: Provider, attempt: LoginAttempt): Promise<void> {
  const k = attempt.keys;
  await Promise.all([idp.store.release(k.pair, attempt.pair.reset_at), idp.store.release(k.address, attempt.address.reset_at), idp.store.release(k.account, attempt.account.reset_at)]);
}

/** A successful login clears the (address, username) count; the address and username counts keep running. */
export async function clear_login_failures(idp: Provider, ip: string, username: string): Promise<void> {
  await idp.store.reset_counter(keys(ip, username).pair);
}
