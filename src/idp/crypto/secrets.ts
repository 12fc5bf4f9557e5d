/**
 * Random secrets and their fast, deterministic hashes.
 *
 * Codes, access/refresh tokens, client secrets and session ids are 256-bit random values, so a
 * plain SHA-256 is enough to store them (DESIGN §5: a slow hash would cap /token at a few
 * requests a second). Passwords use argon2id instead (see passwords.ts).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { encodeBase64urlNoPadding } from "@oslojs/encoding";

/** A random value of `bytes` bytes (default 32 = 256 bits), base64url without padding. */
export function random_token(bytes = 32): string {
  if (!Number.isInteger(bytes) || bytes < 16 || bytes > 1024) {
    throw new RangeError("random_token: bytes must be an integer between 16 and 1024");
  }
  return encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** base64url (no padding) of the SHA-256 of the UTF-8 value. Synchronous: used on hot paths. */
export function sha256(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("base64url");
}

/**
 * Compares two secrets without leaking, through timing, where they first differ.
 * Different lengths return false (the length of a hash or a token is not secret).
 */
export function constant_time_equal(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}

/** A random UUID (v4) for row ids. */
export function random_id(): string {
  return crypto.randomUUID();
}
