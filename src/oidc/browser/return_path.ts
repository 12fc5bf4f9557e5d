/**
 * Where the account's own sign-in goes once it is done: the account page, or back to the page of
 * the provider that sent the person to sign in (the admin console, a SAML request, the forward-auth start step). The page to return to rides
 * in a short-lived cookie set by that page, never in the URL, and only a fixed same-origin path
 * shape is honoured (an open redirect would let any site bounce people through the sign-in,
 * RFC 9700 §4.11). The cookie is cleared by the sign-in that uses it.
 */
import { cookie_name, expired_cookie_options, cookie_options, type CookieReader, type CookieToSet } from "./cookies.ts";
import type { Provider } from "../provider.ts";
import { account_url } from "./account_guard.ts";
import { FORWARD_AUTH_PATHS } from "../forward_auth/paths.ts";

const RETURN_COOKIE = "idp_return";

/**
 * Paths a sign-in may return to: the admin console's pages (letters, digits, . _ ~ - between
 * slashes; no query), and a SAML request waiting for the sign-in (saml/pending.ts: its 43-character id).
 */
const RETURN_PATH = /^(?:\/admin(?:\/[A-Za-z0-9._~-]+)*\/?|\/saml\/resume\/[A-Za-z0-9_-]{43})$/;
/**
 * And the forward-auth start step with the URL the browser came for (forward_auth/start.ts),
 * percent-encoded: that step checks it again against the registered applications before it sends
 * anyone there.
 */
const FORWARD_AUTH_RETURN = new RegExp(`^${FORWARD_AUTH_PATHS.start.replaceAll("/", "\\/")}\\?rd=[A-Za-z0-9%._~!*'()-]{1,1200}$`);

export function safe_return_path(path: string | null | undefined): string | null {
  if (typeof path !== "string") return null;
  if (path.length <= 512 && RETURN_PATH.test(path) && !path.includes("..")) return path;
  return FORWARD_AUTH_RETURN.test(path) ? path : null;
}

/** The cookie that makes the next account sign-in in this browser return to `path` (null: not a path we return to). */
export function return_cookie(idp: Provider, path: string): CookieToSet | null {
  const safe = safe_return_path(path);
  return safe === null ? null : { name: cookie_name(idp, RETURN_COOKIE), value: safe, options: cookie_options(idp, idp.config.tokens.interaction_ttl) };
}

/** The path this browser's next account sign-in returns to; null: the account page. */
export function pending_return_path(idp: Provider, cookies: CookieReader): string | null {
  return safe_return_path(cookies.get(cookie_name(idp, RETURN_COOKIE)));
}

/** Where a finished account sign-in goes, and the cookie to clear when it used one. */
export function after_account_sign_in(idp: Provider, cookies: CookieReader): { url: string; clear: CookieToSet | null } {
  const name = cookie_name(idp, RETURN_COOKIE);
  const path = safe_return_path(cookies.get(name));
  if (path === null) return { url: account_url(idp), clear: null };
  return { url: `${idp.config.issuer}${path}`, clear: { name, value: "", options: expired_cookie_options(idp) } };
}
