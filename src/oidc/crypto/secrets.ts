/**
 * Random secrets and their fast, deterministic hashes.
 *
 * Codes, access/refresh tokens, client secrets and session ids are 256-bit random values, so a
 * plain SHA-256 is enough to store them: guessing is already hopeless, and a slow hash would cap
 * /token at a few requests a second. Passwords use argon2id instead (platform/passwords.ts).
 */
import { timingSafeEqual } from "node:crypto";
import { sha256_base64url, uuid_v7 } from "../../platform/crypto.ts";

/** Native base64url without padding (Uint8Array.prototype.toBase64): cheaper than a JS encoder. */
const BASE64URL = { alphabet: "base64url", omitPadding: true } as const;

/** A random value of `bytes` bytes (default 32 = 256 bits), base64url without padding. */
export function random_token(bytes = 32): string {
  if (!Number.isInteger(bytes) || bytes < 16 || bytes > 1024) {
    throw new RangeError("random_token: bytes must be an integer between 16 and 1024");
  }
  return crypto.getRandomValues(new Uint8Array(bytes)).toBase64(BASE64URL);
}

/**
 * base64url (no padding) of the SHA-256 of the UTF-8 value. Synchronous: used on hot paths.
 * The runtime's one-call native hash (platform/crypto.ts) where node:crypto's
 * createHash/update/digest makes three calls and a Hash object; same bytes, lone surrogates
 * included (U+FFFD).
 */
export function sha256(value: string): string {
  return sha256_base64url(value);
}

/** Hex digits of the issue time that start an ordered secret (milliseconds; 12 last until the year 10889). */
const TIME_DIGITS = 12;
const ORDERED_SECRET = /^[0-9a-f]{12}[A-Za-z0-9_-]{43}$/;
/** An ordered secret, or one of the 43-character codes and tokens issued before (valid until they expire). */
const ISSUED_SECRET = /^(?:[0-9a-f]{12})?[A-Za-z0-9_-]{43}$/;

/** True for a value that can be a code or token we issued (either format); lookups skip anything else. */
export function is_issued_secret(value: string): boolean {
  return ISSUED_SECRET.test(value);
}

/**
 * A bearer secret (authorization code, access or refresh token) whose stored key follows the
 * order of issue: 12 hex digits of the issue time in milliseconds, then 32 random bytes in
 * base64url. 55 characters; the randomness is still 256 bits (RFC 6749 §10.10).
 *
 * Why: the key a code or token is stored under is a primary key. A plain SHA-256 is random, so
 * each insert lands on a random leaf page of that index, and a commit writes one page per row
 * (plus a read when the page is no longer cached, as the table grows). With the issue time in
 * front, the rows of one commit share the last leaf pages, which cuts the store's CPU and
 * system time (bench/store/flow.ts `ORDERED=1`; bench/RESULTS.md).
 */
export function ordered_secret(): string {
  return `${Date.now().toString(16).padStart(TIME_DIGITS, "0")}${random_token(32)}`;
}

/**
 * The key a code or token is stored and looked up under. For an ordered secret, its time prefix
 * (not secret: when it was issued) followed by the SHA-256 of the whole value; for anything else,
 * among them the 43-character codes and tokens issued before ordered secrets, the SHA-256 alone.
 * The two forms differ in length, so no value can be looked up under the other form's key.
 */
export function secret_key(value: string): string {
  return ORDERED_SECRET.test(value) ? `${value.slice(0, TIME_DIGITS)}${sha256(value)}` : sha256(value);
}

const utf8 = new TextEncoder();

/**
 * Compares two secrets without leaking, through timing, where they first differ.
 * Different lengths return false (the length of a hash or a token is not secret).
 */
export function constant_time_equal(a: string, b: string): boolean {
  // TextEncoder gives the same UTF-8 bytes as Buffer.from(…, "utf8"), more cheaply (bench/RESULTS.md, "Token path trims").
  const left = utf8.encode(a);
  const right = utf8.encode(b);
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}

/** A random UUID (v4) for row ids. */
export function random_id(): string {
  return crypto.randomUUID();
}

/**
 * The id of one authorization (codes and tokens carry it: grant_id, family_id): a UUIDv7
 * (RFC 9562 §5.7, platform/crypto.ts): 48 bits of milliseconds, then a counter and random bits.
 * It is never shown to clients
 * and only needs to be unique. Time-ordered ids land at the end of the tokens_grant_id and
 * tokens_family_id indexes: a commit of a batch of tokens then writes one leaf page of each,
 * where random v4 ids wrote one page per token (bench/RESULTS.md, "OpenID Provider").
 */
export function grant_id(): string {
  return uuid_v7();
}
