/**
 * The forward-auth cookie: what tells the applications' hosts who is signed in. The provider's
 * own session cookie cannot: it is host-only (`__Host-`, browser/cookies.ts), so the browser
 * never sends it to grafana.example.com. This one is set on the configured domain
 * (IDP_FORWARD_AUTH_COOKIE_DOMAIN, RFC 6265 §5.2.3), so every host of it receives it, the
 * applications behind the proxy included.
 *
 * That is why it is a credential of its own and not the session cookie's value: a 256-bit random
 * value whose SHA-256 is stored bound to one browser session (store: forward_auth_tokens). It
 * opens the protected applications as long as that session lives, and nothing else: not the
 * account page, not /authorize, not a sign-out. Ending the session (a sign-out, "end sessions",
 * a disabled user) deletes it with the session, and the next check refuses it.
 *
 * HttpOnly, SameSite=Lax (sent on the top-level navigations to the applications), Path=/,
 * Secure with an https issuer and then named with the `__Secure-` prefix (RFC 6265bis §4.1.3.1:
 * only a secure origin can set it, so a plain-http host of the domain cannot plant one). It
 * lasts as long as the session.
 */
import type { CookieReader, CookieSettings, CookieToSet } from "../browser/cookies.ts";
import { read_cookie } from "../browser/cookies.ts";
import { random_token, sha256 } from "../crypto/secrets.ts";
import type { Provider } from "../provider.ts";
import { live_session } from "../signin/sessions.ts";
import type { ProtectedAppRow, SessionRow } from "../../store/types.ts";

const COOKIE = "idp_forward_auth";

export function forward_auth_cookie_name(idp: Provider): string {
  return idp.secure ? `__Secure-${COOKIE}` : COOKIE;
}

function options(idp: Provider, domain: string, max_age: number): CookieSettings & { domain: string } {
  return { domain, path: "/", httpOnly: true, sameSite: "lax", secure: idp.secure, maxAge: max_age };
}

/** The live session the browser's forward-auth cookie stands for (one query); null without one. */
export async function forward_auth_session(idp: Provider, cookies: CookieReader): Promise<SessionRow | null> {
  const value = read_cookie(cookies, forward_auth_cookie_name(idp));
  if (value === null) return null;
  return live_session(idp, await idp.store.get_forward_auth_session(sha256(value)));
}

/**
 * The cookie for `session` on `domain`: none when the browser's cookie already stands for it,
 * else a new value bound to it, lasting as long as the session.
 */
export async function forward_auth_cookie(
  idp: Provider,
  cookies: CookieReader,
  session: SessionRow,
  domain: string,
): Promise<(CookieToSet & { options: { domain: string } }) | null> {
  const current = await forward_auth_session(idp, cookies);
  if (current !== null && current.id_hash === session.id_hash) return null;
  const value = random_token(32);
  const now = idp.now();
  await idp.store.create_forward_auth_token({ id_hash: sha256(value), session_id_hash: session.id_hash, created_at: now });
  return { name: forward_auth_cookie_name(idp), value, options: options(idp, domain, Math.max(1, session.expires_at - now)) };
}

/**
 * The host-only cookie of an application outside the cookie domain (callback.ts): no Domain
 * attribute, so the browser sends it to the application's host alone (RFC 6265 §5.3 step 6), and
 * its token opens that host alone (store: forward_auth_tokens.host). Secure when the application
 * is https, and then named `__Host-` (RFC 6265bis §4.1.3.2: Secure, Path=/, no Domain, so no
 * other host can set or shadow it).
 */
export function host_cookie_name(app: ProtectedAppRow): string {
  return app.url.startsWith("https:") ? `__Host-${COOKIE}` : `${COOKIE}_host`;
}

/** The live session the browser's host-only cookie for `app`'s host stands for; null without one. */
export async function host_cookie_session(idp: Provider, cookies: CookieReader, app: ProtectedAppRow): Promise<SessionRow | null> {
  const value = read_cookie(cookies, host_cookie_name(app));
  if (value === null) return null;
  return live_session(idp, await idp.store.get_forward_auth_session(sha256(value), app.host));
}

/** A new host-only cookie for `session` at `app`'s host, lasting as long as the session. */
export async function host_cookie(idp: Provider, session: SessionRow, app: ProtectedAppRow): Promise<CookieToSet> {
  const value = random_token(32);
  const now = idp.now();
  await idp.store.create_forward_auth_token({ id_hash: sha256(value), session_id_hash: session.id_hash, host: app.host, created_at: now });
  const options: CookieSettings = { path: "/", httpOnly: true, sameSite: "lax", secure: app.url.startsWith("https:"), maxAge: Math.max(1, session.expires_at - now) };
  return { name: host_cookie_name(app), value, options };
}
