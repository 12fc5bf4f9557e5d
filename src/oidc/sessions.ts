/**
 * Browser sessions (single sign-on): created at login, read at /authorize so a signed-in user is
 * not asked for a password again until the session ends or the client asks (prompt=login,
 * max_age; OIDC Core §3.1.2.1).
 */
import { cookie_options, session_cookie_name, read_cookie, type CookieReader, type CookieToSet } from "./cookies.ts";
import { random_token, sha256 } from "./crypto/secrets.ts";
import type { Provider } from "./provider.ts";
import type { SessionRow, Store, UnixSeconds, UserRow } from "../store/types.ts";

export type ActiveSession = { session: SessionRow; user: UserRow };

/**
 * The live session of the browser that sent `cookies`, without reading its user; null when there
 * is none. Its user exists: the store deletes a user's sessions with the user (UserStore.delete_user,
 * ON DELETE CASCADE). /authorize needs no more than this (one read fewer on its hot path).
 */
export async function current_session_row(idp: Provider, cookies: CookieReader): Promise<SessionRow | null> {
  const value = read_cookie(cookies, session_cookie_name(idp));
  if (value === null) return null;
  const session = await idp.store.get_session(sha256(value));
  return session === null || session.expires_at <= idp.now() ? null : session;
}

/** The live session of the browser that sent `cookies`, with its user; null when there is none. */
export async function current_session(idp: Provider, cookies: CookieReader): Promise<ActiveSession | null> {
  const session = await current_session_row(idp, cookies);
  if (session === null) return null;
  const user = await idp.store.get_user_by_id(session.user_id);
  return user === null ? null : { session, user };
}

/** Starts a session for a user who just authenticated; returns the row and the cookie to set. */
export async function start_session(
  idp: Provider,
  user: UserRow,
  amr: string[],
): Promise<{ session: SessionRow; cookie: CookieToSet }> {
  const value = random_token(32);
  const now = idp.now();
  const ttl = idp.config.tokens.session_ttl;
  const session = await idp.store.create_session({ id_hash: sha256(value), user_id: user.id, auth_time: now, amr, expires_at: now + ttl, created_at: now, last_seen_at: now });
  return { session, cookie: { name: session_cookie_name(idp), value, options: cookie_options(idp, ttl) } };
}

/** Ends the browser's previous session when another login replaces it. */
export async function end_session_by_cookie(idp: Provider, cookies: CookieReader): Promise<void> {
  const value = read_cookie(cookies, session_cookie_name(idp));
  if (value !== null) await idp.store.delete_session(sha256(value));
}

/**
 * Ends every session of a user but `keep_id_hash` (none kept when omitted) and revokes the tokens
 * issued in them: after a password change or a two-step verification reset (account page, CLI).
 */
export async function end_user_sessions(store: Store, user_id: string, now: UnixSeconds, keep_id_hash?: string): Promise<{ sessions_ended: number; tokens_revoked: number }> {
  let sessions_ended = 0;
  let tokens_revoked = 0;
  for (const session of await store.list_sessions_for_user(user_id)) {
    if (session.id_hash === keep_id_hash) continue;
    tokens_revoked += await store.revoke_by_session(session.id_hash, now);
    if (await store.delete_session(session.id_hash)) sessions_ended++;
  }
  return { sessions_ended, tokens_revoked };
}
