/**
 * The account area's guard: who is signed in (the browser's single sign-on session) and the
 * CSRF token of the account forms.
 *
 * CSRF: every account form carries HMAC-SHA256(session cookie value, "account-csrf"). Only this
 * browser knows the cookie value (HttpOnly, never in a page), so a form posted from another site
 * cannot carry the token; a new session (after a sign-in) gives a new token. SameSite=Lax on the
 * cookie is a second line: cross-site POSTs do not carry it at all.
 */
import { read_cookie, session_cookie_name, type CookieReader } from "./cookies.ts";
import { check_form_token, form_token } from "./form_tokens.ts";
import type { Provider } from "../provider.ts";
import { current_session, type ActiveSession } from "../signin/sessions.ts";

export type AccountSession = ActiveSession & { csrf: string };

/** The paths of the account area, below the issuer. */
export const ACCOUNT_PATHS = {
  home: "/account",
  login: "/account/login",
  password: "/account/password",
  totp: "/account/totp",
  grants: "/account/grants",
  sessions: "/account/sessions",
  email: "/account/email",
  profile: "/account/profile",
  delete: "/account/delete",
} as const;

export function account_url(idp: Provider, path: keyof typeof ACCOUNT_PATHS = "home"): string {
  return `${idp.config.issuer}${ACCOUNT_PATHS[path]}`;
}

export function account_csrf(session_cookie: string): string {
  return form_token(session_cookie, "account");
}

/** The signed-in user of this browser with the form token; null when nobody is signed in. */
export async function account_session(idp: Provider, cookies: CookieReader): Promise<AccountSession | null> {
  const active = await current_session(idp, cookies);
  const value = read_cookie(cookies, session_cookie_name(idp));
  if (active === null || value === null) return null;
  return { ...active, csrf: account_csrf(value) };
}

/** Rejects an account form whose token is missing or not this session's (403 page). */
export function check_account_csrf(session: AccountSession, given: string | undefined): void {
  check_form_token(given, session.csrf, "The form was not sent from your account page, or you signed in again since it was opened. Open your account page and try again.");
}
