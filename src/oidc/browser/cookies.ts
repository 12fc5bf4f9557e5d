/**
 * The provider's cookies. Both are HttpOnly (scripts never read them), SameSite=Lax (sent on the
 * top-level navigation from the client to /authorize, not on cross-site subrequests or POSTs),
 * Path=/, and Secure when the issuer is https.
 *
 * With an https issuer their names carry the `__Host-` prefix (RFC 6265bis §4.1.3.2): a browser
 * accepts such a cookie only with Secure, Path=/ and no Domain, so neither a sibling subdomain
 * nor a plain-http answer on the same host can plant or overwrite one (session fixation, a
 * forged CSRF binding). An http issuer (development on localhost) keeps the plain names: a
 * prefixed cookie needs Secure, which not every browser stores over http://localhost.
 *
 * - `idp_session`: the browser's single sign-on session; a 256-bit random value whose SHA-256 is
 *   the session row's id_hash (a database leak does not give usable cookies).
 * - `idp_interaction`: a 256-bit random value binding pending interactions to this browser
 *   (interactions.ts); its SHA-256 is stored in each interaction, and the CSRF token of every
 *   form is derived from it.
 */
import type { Provider } from "../provider.ts";

/** What the rules read of a request's cookies (the HTTP layer passes its own cookie map). */
export interface CookieReader {
  get(name: string): string | null;
}

/** The attributes of a cookie the rules ask the HTTP layer to set (RFC 6265 §4.1). */
export type CookieSettings = {
  path: string;
  httpOnly: boolean;
  sameSite: "lax" | "strict";
  secure: boolean;
  maxAge: number;
  expires?: Date;
};

/** A cookie to set on the answer. */
export type CookieToSet = { name: string; value: string; options: CookieSettings };

const SESSION_COOKIE = "idp_session";
const INTERACTION_COOKIE = "idp_interaction";

/** A cookie's name on this provider: `__Host-<name>` with an https issuer (see above), else `name`. */
export function cookie_name(idp: Provider, name: string): string {
  return idp.secure ? `__Host-${name}` : name;
}

/** The single sign-on session cookie's name (`__Host-idp_session` with an https issuer). */
export function session_cookie_name(idp: Provider): string {
  return cookie_name(idp, SESSION_COOKIE);
}

/** The interaction binding cookie's name (`__Host-idp_interaction` with an https issuer). */
export function interaction_cookie_name(idp: Provider): string {
  return cookie_name(idp, INTERACTION_COOKIE);
}

/** Cookie values we issue: 43 base64url characters (random_token of 32 bytes). */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

/** The value of a cookie we issued, or null when it is missing or malformed. */
export function read_cookie(cookies: CookieReader, name: string): string | null {
  const value = cookies.get(name);
  return value !== null && COOKIE_VALUE.test(value) ? value : null;
}

/** Path=/, Secure with an https issuer and never a Domain: what a `__Host-` name requires. */
export function cookie_options(idp: Provider, max_age: number): CookieSettings {
  return { path: "/", httpOnly: true, sameSite: "lax", secure: idp.secure, maxAge: max_age };
}

export function expired_cookie_options(idp: Provider): CookieSettings {
  return { path: "/", httpOnly: true, sameSite: "lax", secure: idp.secure, maxAge: 0, expires: new Date(0) };
}
