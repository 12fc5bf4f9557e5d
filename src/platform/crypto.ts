/**
 * The two hashing and id primitives of the runtime that oidc/crypto/secrets.ts needs on hot
 * paths. They live here, in the runtime seam, so the protocol rules never name the runtime: each
 * runtime has its adapter (crypto_bun.ts, crypto_deno.ts), chosen once by which.ts's RUNTIME
 * (docs/ARCHITECTURE.md, "The runtime seam").
 */
import { RUNTIME } from "./which.ts";

/** What each runtime's adapter provides (checked here, where it is chosen). */
type CryptoAdapter = {
  sha256_base64url(value: string): string;
  uuid_v7(): string;
};

const adapter: CryptoAdapter = RUNTIME === "deno" ? await import("./crypto_deno.ts") : await import("./crypto_bun.ts");

/** base64url (no padding) of the SHA-256 of the UTF-8 value (lone surrogates as U+FFFD). */
export const sha256_base64url: (value: string) => string = adapter.sha256_base64url;

/**
 * A UUIDv7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then a 12-bit counter that keeps ids
 * of the same millisecond in order, and 62 random bits.
 */
export const uuid_v7: () => string = adapter.uuid_v7;
