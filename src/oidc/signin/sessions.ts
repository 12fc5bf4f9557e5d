/**
 * Browser sessions (single sign-on): created at login, read at /authorize so a signed-in user is
 * not asked for a password again until the session ends or the client asks (prompt=login,
 * max_age; OIDC Core §3.1.2.1).
 */
import { cookie_options, session_cookie_name, read_cookie, type CookieReader, type CookieToSet } from "../browser/cookies.ts";
import { random_token, sha256 } from "../crypto/secrets.ts";
import { not_active } from "../accounts/account_status.ts";
import type { Provider } from "../provider.ts";
import type { SessionRow, Store, UnixSeconds, UserRow } from "../../store/types.ts";

export type ActiveSession = { session: SessionRow; user: UserRow };

/**
 * The live session of the browser that sent `cookies`, without reading its user; null when there
 * is none. Its user exists: the store deletes a user's sessions with the user (UserStore.delete_user,
 * ON DELETE CASCADE). /authorize needs no more than this (one read fewer on its hot path).
 */
export async function current_session_row(idp: Provider, cookies: CookieReader): Promise<SessionRow | null> {
  const value = read_cookie(cookies, session_cookie_name(idp));
  if (value === null) return null;
  return live_session(idp, await idp.store.get_session(sha256(value)));
}

/**
 * `session` when it has not expired, with its "last seen" (the account page's list of sessions)
 * brought up to date: written at most every few minutes, so a busy single sign-on (or a
 * forward-auth check, forward_auth/check.ts) adds no write to most requests. The expiry does not slide.
 */
export async function live_session(idp: Provider, session: SessionRow | null): Promise<SessionRow | null> {
  const now = idp.now();
  if (session === null || session.expires_at <= now) return null;
  if (now - session.last_seen_at >= LAST_SEEN_INTERVAL) {
    await idp.store.touch_session(session.id_hash, now);
    session.last_seen_at = now;
  }
  return session;
}

/** Seconds between two updates of a session's last_seen_at. */
export const LAST_SEEN_INTERVAL = 300;

/** The live session of the browser that sent `cookies`, with its user; null when there is none. */
export async function current_session(idp: Provider, cookies: CookieReader): Promise<ActiveSession | null> {
  const session = await current_session_row(idp, cookies);
  if (session === null) return null;
  const user = await idp.store.get_user_by_id(session.user_id);
  return user === null ? null : { session, user };
}

/** Longest User-Agent kept with a session: enough to name a browser, not a place to store data. */
export const MAX_USER_AGENT = 512;

/** Where a session is started from, shown on the account page (store: sessions.user_agent, ip). */
export type SessionDevice = { user_agent?: string | null; ip?: string | null };

/** Starts a session for a user who just authenticated; returns the row and the cookie to set. */
export async function start_session(idp: Provider, user: UserRow, amr: string[], device: SessionDevice = {}): Promise<{ session: SessionRow; cookie: CookieToSet }> {
  // Only active accounts get a session, whatever way they signed in (accounts/account_status.ts).
  const refused = not_active(user);
  if (refused !== null) throw refused;
  const value = random_token(32);
  const now = idp.now();
  const ttl = idp.config.tokens.session_ttl;
  const user_agent = device.user_agent ? device.user_agent.slice(0, MAX_USER_AGENT) : null;
  const ip = device.ip ? device.ip : null;
  const session = await idp.store.create_session({
    id_hash: sha256(value),
    user_id: user.id,
    auth_time: now,
    amr,
    expires_at: now + ttl,
    created_at: now,
    last_seen_at: now,
    user_agent,
    ip,
  });
  return { session, cookie: { name: session_cookie_name(idp), value, options: cookie_options(idp, ttl) } };
}

/** Ends the browser's previous session when another login replaces it. */
export async function end_session_by_cookie(idp: Provider, cookies: CookieReader): Promise<void> {
  const value = read_cookie(cookies, session_cookie_name(idp));
  if (value !== null) await idp.store.delete_session(sha256(value));
}

/**
 * Ends every session of a user but `keep_id_hash` (none kept when omitted) and revokes EVERY token
 * of the user, whatever client or session issued it: the paths that end a user's access for a
 * security reason (disabling, a password set or reset, a second-factor reset, an administrator's
 * "end sessions", a removed passkey, the account page's password change) use it. Not only the
 * tokens of live sessions: an offline_access refresh token outlives its session on purpose (a
 * sign-out keeps it, OIDC Core §11, logout/end_session.ts), and is exactly what a stolen device or
 * a disabled user would otherwise keep. The kept session stays signed in; its clients' tokens go
 * too, and they get new ones through it without a password.
 */
export async function end_user_sessions(store: Store, user_id: string, now: UnixSeconds, keep_id_hash?: string): Promise<{ sessions_ended: number; tokens_revoked: number }> {
  let sessions_ended = 0;
  for (const session of await store.list_sessions_for_user(user_id)) {
    if (session.id_hash === keep_id_hash) continue;
    if (await store.delete_session(session.id_hash)) sessions_ended++;
  }
  // After the sessions: no session is left to issue a token the revocation would miss.
  const tokens_revoked = await store.revoke_for_user(user_id, now);
  return { sessions_ended, tokens_revoked };
}
