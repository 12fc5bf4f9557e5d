// The runtime's cookie parser and serialiser behind our own types (../cookies.ts).
import type { CookieOptions, CookieReader } from "../cookies.ts";

/** The cookies of a Cookie request header (RFC 6265 §5.4); an absent header has none. */
export function read_cookies(header: string | null): CookieReader {
  return new Bun.CookieMap(header ?? "");
}

/** One Set-Cookie header value (RFC 6265 §4.1). */
export function serialize_cookie(name: string, value: string, options: CookieOptions): string {
  return new Bun.Cookie({ ...options, name, value }).serialize();
}
