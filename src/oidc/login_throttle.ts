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
 * hashed: no usernames or addresses in the counters table.
 */
import { record_event } from "./audit.ts";
import { Throttled } from "./errors.ts";
import type { Config } from "../config/schema.ts";
import { sha256 } from "./crypto/secrets.ts";
import type { Provider } from "./provider.ts";
import { sleep } from "../platform/runtime.ts";

export type LoginThrottle = Config["login_throttle"];

type Keys = { pair: string; address: string; account: string };

function keys(ip: string, username: string): Keys {
  const name = username.toLowerCase();
  return { pair: `login:ua:${sha256(`${ip}\n${name}`)}`, address: `login:a:${sha256(ip)}`, account: `login:u:${sha256(name)}` };
}

/** How long an attempt for a username waits, given that username's failures in the window. */
export function login_delay_ms(failures: number, rules: LoginThrottle): number {
  return failures >= rules.delay_after ? rules.delay_ms : 0;
}

/** Refuses (429) while a limit is reached, before any password work; waits while the username is under attack. */
export async function check_login_allowed(idp: Provider, ip: string, username: string): Promise<void> {
  const now = idp.now();
  const rules = idp.config.login_throttle;
  const k = keys(ip, username);
  const [pair, address, account] = await Promise.all([idp.store.get_counter(k.pair), idp.store.get_counter(k.address), idp.store.get_counter(k.account)]);
  for (const [counter, max] of [[pair, rules.max_failures], [address, rules.max_failures_per_ip]] as const) {
    if (counter !== null && counter.count >= max && counter.reset_at > now) {
      throw new Throttled("Too many failed sign-in attempts. Wait a few minutes and try again.", counter.reset_at - now);
    }
  }
  const delay = account !== null && account.reset_at > now ? login_delay_ms(account.count, rules) : 0;
  if (delay > 0) await sleep(delay);
}

/** Counts a failed attempt; the attempt that reaches a 429 limit is recorded in the audit log. */
export async function record_login_failure(idp: Provider, ip: string, username: string): Promise<void> {
  const now = idp.now();
  const rules = idp.config.login_throttle;
  const window = rules.window_seconds;
  const k = keys(ip, username);
  const [pair, address] = await Promise.all([idp.store.hit(k.pair, window, now), idp.store.hit(k.address, window, now), idp.store.hit(k.account, window, now)]);
  const locked = pair.count === rules.max_failures ? { scope: "address_and_username", until: pair.reset_at } : address.count === rules.max_failures_per_ip ? { scope: "address", until: address.reset_at } : null;
  if (locked === null) return;
  const user = locked.scope === "address" || username === "" ? null : await idp.store.get_user_by_username(username);
  await record_event(idp, { type: "login_locked", outcome: "failure", user_id: user?.id ?? null, ip, details: locked });
}

/** A successful login clears the (address, username) count; the address and username counts keep running. */
export async function clear_login_failures(idp: Provider, ip: string, username: string): Promise<void> {
  await idp.store.reset_counter(keys(ip, username).pair);
}
