/** The hashing and id primitives of crypto.ts on Bun. */

/**
 * Bun.SHA256.hash with an encoding is a single native call: no Hash object and no separate
 * update/digest steps as with node:crypto's createHash.
 */
export function sha256_base64url(value: string): string {
  return Bun.SHA256.hash(value, "base64url");
}

/** Bun's own UUIDv7: a 12-bit counter after the milliseconds keeps the ids of one millisecond in order. */
export function uuid_v7(): string {
  return Bun.randomUUIDv7();
}
