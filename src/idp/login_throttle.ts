/**
 * Slows down password guessing at the login page (OWASP Authentication Cheat Sheet, "Protect
 * Against Automated Attacks"): failed attempts are counted per (client address, username) and
 * per client address in fixed windows in the store, so every instance shares the counts. A
 * username alone is never locked, so nobody can lock a user out from their own address.
 * Counter keys are hashed: no usernames or addresses in the counters table.
 */
import { Fw } from "../fw/index.ts";
import { sha256 } from "./crypto/secrets.ts";
import type { Provider } from "./provider.ts";

const WINDOW_SECONDS = 15 * 60;
const PER_USER_AND_ADDRESS = 10;
const PER_ADDRESS = 100;

function keys(ip: string, username: string): [string, number][] {
  return [
    [`login:ua:${sha256(`${ip}\n${username.toLowerCase()}`)}`, PER_USER_AND_ADDRESS],
    [`login:a:${sha256(ip)}`, PER_ADDRESS],
  ];
}

/** Refuses (429) while a limit is reached, before any password work is done. */
export async function check_login_allowed(idp: Provider, ip: string, username: string): Promise<void> {
  const now = idp.now();
  for (const [key, limit] of keys(ip, username)) {
    const counter = await idp.store.getCounter(key);
    if (counter !== null && counter.count >= limit && counter.reset_at > now) {
      throw new Fw.TooManyRequests("Too many failed sign-in attempts. Wait a few minutes and try again.", counter.reset_at - now);
    }
  }
}

export async function record_login_failure(idp: Provider, ip: string, username: string): Promise<void> {
  const now = idp.now();
  for (const [key] of keys(ip, username)) await idp.store.hit(key, WINDOW_SECONDS, now);
}

/** A successful login clears the (address, username) count; the address count keeps running. */
export async function clear_login_failures(idp: Provider, ip: string, username: string): Promise<void> {
  await idp.store.resetCounter(keys(ip, username)[0]![0]);
}
