// cookies.ts where the runtime has no cookie classes of its own (Deno): a parser and a
// serialiser in plain TypeScript that answer as Bun's CookieMap and Cookie do, quirks included
// (tests/fw/cookies.test.ts runs both on the same inputs).
import type { CookieOptions, CookieReader } from "../cookies.ts";

/** Spaces and tabs around a name or a value (RFC 6265 §5.2: the parser trims whitespace). */
function trim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === " " || text[start] === "\t")) start++;
  while (end > start && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
  return text.slice(start, end);
}

const utf8 = new TextDecoder();
const utf8_encoder = new TextEncoder();

/** The value of an ASCII hex digit, or -1. */
function hex(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}

/**
 * Percent-decodes a cookie value as Bun does, on its UTF-8 bytes: `%XX` is a byte; a `%` not
 * followed by two hex digits becomes U+FFFD together with the two bytes after it (or alone, with
 * fewer left); the bytes are then read as UTF-8, an invalid sequence as U+FFFD.
 */
function decode(value: string): string {
  if (!value.includes("%")) return value;
  const bytes = utf8_encoder.encode(value);
  const out: number[] = [];
  for (let i = 0; i < bytes.length; ) {
    if (bytes[i] !== 0x25) {
      out.push(bytes[i++]!);
      continue;
    }
    const high = hex(bytes[i + 1]);
    const low = hex(bytes[i + 2]);
    if (high >= 0 && low >= 0) out.push(high * 16 + low);
    else out.push(0xef, 0xbf, 0xbd);
    i += i + 2 < bytes.length ? 3 : 1;
  }
  return utf8.decode(new Uint8Array(out));
}

/** The cookies of a Cookie header: the first of a repeated name wins, a pair without a name or `=` is skipped. */
export function read_cookies(header: string | null): CookieReader {
  const cookies = new Map<string, string>();
  if (header !== null) {
    for (const pair of header.split(";")) {
      const eq = pair.indexOf("=");
      if (eq === -1) continue;
      const name = trim(pair.slice(0, eq));
      if (name === "" || cookies.has(name)) continue;
      cookies.set(name, decode(trim(pair.slice(eq + 1))));
    }
  }
  return { get: (name) => cookies.get(name) ?? null };
}

/** The characters encodeURIComponent leaves alone. */
const UNRESERVED = /^[A-Za-z0-9\-_.!~*'()]$/;

/** The value as UTF-8, every byte but the unreserved ones percent-encoded (a lone surrogate as U+FFFD). */
function encode(value: string): string {
  if (/^[A-Za-z0-9\-_.!~*'()]*$/.test(value)) return value;
  let out = "";
  for (const byte of utf8_encoder.encode(value)) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Whether every character of `text` is printable ASCII but those in `banned` (which may include the space). */
function printable(text: string, banned: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code >= 0x7f || banned.includes(text[i]!)) return false;
  }
  return true;
}

const SAME_SITE = { strict: "Strict", lax: "Lax", none: "None" } as const;

/** A month's name, which Bun's date parser requires of a string (it takes no ISO 8601 dates). */
const MONTH = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;

function expires_of(expires: Date | number | string): string {
  if (expires instanceof Date) {
    if (Number.isNaN(expires.getTime())) throw new TypeError("expires must be a valid Date (or Number)");
    return expires.toUTCString();
  }
  // A number is Unix seconds (as Bun reads it); a string must be a date with its month named
  // (an HTTP date, RFC 9110 §5.6.7) that parses to a time other than 0.
  if (typeof expires === "number") return new Date(expires * 1000).toUTCString();
  const time = MONTH.test(expires) ? Date.parse(expires) : Number.NaN;
  if (Number.isNaN(time) || time === 0) throw new TypeError("Invalid cookie expiration date");
  return new Date(time).toUTCString();
}

/**
 * One Set-Cookie value, attributes in Bun's order; Path defaults to `/`, SameSite to Lax. What
 * cannot be sent throws, checked in Bun's order (so the first problem named is the same).
 */
export function serialize_cookie(name: string, value: string, options: CookieOptions): string {
  if (name === "") throw new TypeError("name is required");
  const expires = options.expires === undefined ? undefined : expires_of(options.expires);
  const same_site = SAME_SITE[(options.sameSite ?? "lax") as keyof typeof SAME_SITE];
  if (same_site === undefined) throw new TypeError("Invalid sameSite value. Must be 'strict', 'lax', or 'none'");
  if (!printable(name, " ;=")) throw new TypeError("Invalid cookie name: contains invalid characters");
  const path = options.path ?? "/";
  if (!printable(path, ";<")) throw new TypeError("Invalid cookie path: contains invalid characters");
  const domain = options.domain ?? "";
  if (!/^[a-z0-9.-]*$/.test(domain)) throw new TypeError("Invalid cookie domain: contains invalid characters");
  let out = `${name}=${encode(value)}`;
  if (domain !== "") out += `; Domain=${domain}`;
  if (path !== "") out += `; Path=${path}`;
  if (expires !== undefined) out += `; Expires=${expires}`;
  if (options.maxAge !== undefined && !Number.isNaN(options.maxAge)) out += `; Max-Age=${String(options.maxAge)}`;
  if (options.secure) out += "; Secure";
  if (options.httpOnly) out += "; HttpOnly";
  return `${out}; SameSite=${same_site}`;
}
