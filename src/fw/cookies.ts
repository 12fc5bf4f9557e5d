// Cookies as endpoints see them. These are our own types, so that nothing outside
// src/fw/runtime/ depends on the runtime's cookie classes; runtime/cookies.ts implements them.

/**
 * The attributes of a Set-Cookie we send (RFC 6265 §4.1.2; SameSite: RFC 6265bis §4.1.2.7).
 * Same spelling as the runtime's cookie options, so an object made for either fits both.
 */
export interface CookieOptions {
  path?: string;
  domain?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: "strict" | "lax" | "none";
  /** Seconds; 0 or less expires the cookie at once (RFC 6265 §5.2.2). */
  maxAge?: number;
  /** A Date, a Unix time in seconds, or an HTTP date string (RFC 6265 §5.2.1). */
  expires?: Date | number | string;
}

/** The request's cookies (the Cookie header, RFC 6265 §5.4), read by name. */
export interface CookieReader {
  /** The value of the first cookie of that name, or null when the request has none. */
  get(name: string): string | null;
}
