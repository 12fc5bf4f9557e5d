// The runtime's cookie parser and serialiser behind our own types (../cookies.ts): Bun's native
// one (cookies_bun.ts), elsewhere cookies_portable.ts, which answers as Bun's does
// (tests/fw/cookies.test.ts compares them). Chosen once by RUNTIME (platform/which.ts).
import { RUNTIME } from "../../platform/which.ts";
import type { CookieOptions, CookieReader } from "../cookies.ts";

type CookieAdapter = {
  read_cookies(header: string | null): CookieReader;
  serialize_cookie(name: string, value: string, options: CookieOptions): string;
};

const adapter: CookieAdapter = RUNTIME === "bun" ? await import("./cookies_bun.ts") : await import("./cookies_portable.ts");

/** The cookies of a Cookie request header (RFC 6265 §5.4); an absent header has none. */
export const read_cookies: (header: string | null) => CookieReader = adapter.read_cookies;

/** One Set-Cookie header value (RFC 6265 §4.1). Throws on a name, path or domain that cannot be sent. */
export const serialize_cookie: (name: string, value: string, options: CookieOptions) => string = adapter.serialize_cookie;
