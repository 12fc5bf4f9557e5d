// cookies.ts on Bun: Bun's native cookie parser and serialiser.
import type { CookieOptions, CookieReader } from "../cookies.ts";

export function read_cookies(header: string | null): CookieReader {
  return new Bun.CookieMap(header ?? "");
}

export function serialize_cookie(name: string, value: string, options: CookieOptions): string {
  return new Bun.Cookie({ ...options, name, value }).serialize();
}
