/**
 * The two hashing and id primitives of the runtime that oidc/crypto/secrets.ts needs on hot
 * paths. They live here, in the runtime seam, so the protocol rules never name the runtime:
 * another runtime replaces this file (docs/ARCHITECTURE.md).
 */

/**
 * base64url (no padding) of the SHA-256 of the UTF-8 value (lone surrogates as U+FFFD).
 * Bun.SHA256.hash with an encoding is a single native call: no Hash object and no separate
 * update/digest steps as with node:crypto's createHash.
 */
export function sha256_base64url(value: string): string {
  return Bun.SHA256.hash(value, "base64url");
}

/**
 * A UUIDv7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then (Bun) a 12-bit counter that keeps
 * ids of the same millisecond in order, and 62 random bits.
 */
export function uuid_v7(): string {
  return Bun.randomUUIDv7();
}
