/**
 * Browser sessions (single sign-on): created at login, read at /authorize so a signed-in user is
 * not asked for a password again until the session ends or the client asks (prompt=login,
 * max_age; OIDC Core §3.1.2.1).
 */
import { SESSION_COOKIE, cookie_options, read_cookie } from "./cookies.ts";
import { random_token, sha256 } from "./crypto/secrets.ts";
import type { Provider } from "./provider.ts";
import type { SessionRow, UserRow } from "./store/types.ts";

export type ActiveSession = { session: SessionRow; user: UserRow };

/** The live session of the browser that sent `cookies`, with its user; null when there is none. */
export async function current_session(idp: Provider, cookies: Bun.CookieMap): Promise<ActiveSession | null> {
  const value = read_cookie(cookies, SESSION_COOKIE);
  if (value === null) return null;
  const session = await idp.store.getSession(sha256(value));
  if (session === null || session.expires_at <= idp.now()) return null;
  const user = await idp.store.getUserById(session.user_id);
  return user === null ? null : { session, user };
}

/** Starts a session for a user who just authenticated; returns the row and the cookie to set. */
export async function start_session(
  idp: Provider,
  user: UserRow,
  amr: string[],
): Promise<{ session: SessionRow; cookie: { name: string; value: string; options: Bun.CookieInit } }> {
  const value = random_token(32);
  const now = idp.now();
  const ttl = idp.config.tokens.session_ttl;
  const session = await idp.store.createSession({ id_hash: sha256(value), user_id: user.id, auth_time: now, amr, expires_at: now + ttl, created_at: now, last_seen_at: now });
  return { session, cookie: { name: SESSION_COOKIE, value, options: cookie_options(idp, ttl) } };
}

/** Ends the browser's previous session when another login replaces it. */
export async function end_session_by_cookie(idp: Provider, cookies: Bun.CookieMap): Promise<void> {
  const value = read_cookie(cookies, SESSION_COOKIE);
  if (value !== null) await idp.store.deleteSession(sha256(value));
}
