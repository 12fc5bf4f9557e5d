/**
 * RS256/PS256 through the system's OpenSSL 3 (libcrypto.so.3), for jws.ts.
 *
 * Why: Bun's WebCrypto and node:crypto run on BoringSSL, whose RSA-2048 private-key operation
 * costs much more CPU than OpenSSL 3's for the same signature (bench/RESULTS.md, "Signing").
 * It is the largest single cost of an authorization-code flow.
 *
 * On Bun the library is called through `bun:ffi` (openssl_bun.ts). On Deno there is no such
 * adapter (openssl_deno.ts): `openssl_rsa_signer` returns null there and jws.ts signs with
 * WebCrypto. The caller turns OpenSSL off with `enabled: false` (config `openssl`, IDP_OPENSSL=off,
 * read by src/app: this leaf reads no environment).
 */
import { RUNTIME } from "./which.ts";

/** Sonames tried in order (Linux, then macOS Homebrew's layout). */
export const LIBCRYPTO_NAMES = ["libcrypto.so.3", "libcrypto.3.dylib"] as const;

/** The RSA algorithms signed here (RFC 7518 §3.3, §3.5). */
export type OpensslRsaAlg = "RS256" | "PS256";

/** A private key as a JWK (RFC 7517 §4, RFC 7518 §6.3.2): its members, whatever object type holds them. */
export type PrivateJwk = JsonWebKey | { readonly [member: string]: unknown };

export type OpensslSignOptions = {
  /** Library names to dlopen (default LIBCRYPTO_NAMES); tests pass a missing one. */
  library?: readonly string[];
  /** False skips OpenSSL and returns null (default true; config `openssl`). */
  enabled?: boolean;
};

type Signer = (data: Uint8Array) => Uint8Array;

/** What each runtime's adapter provides (checked here, where it is chosen). */
type OpensslAdapter = {
  rsa_signer(jwk: JsonWebKey, alg: OpensslRsaAlg, names: readonly string[]): Signer | null;
};

const adapter: OpensslAdapter = RUNTIME === "deno" ? await import("./openssl_deno.ts") : await import("./openssl_bun.ts");

/**
 * A synchronous RS256 (RSASSA-PKCS1-v1_5, SHA-256) or PS256 (RSASSA-PSS, SHA-256, MGF1 SHA-256,
 * 32-octet salt; RFC 7518 §3.3, §3.5) signer over the private RSA JWK, or null when OpenSSL 3
 * is unavailable, disabled, or refuses the key. The signer throws if a signature fails.
 */
export function openssl_rsa_signer(jwk: PrivateJwk, alg: OpensslRsaAlg, options: OpensslSignOptions = {}): Signer | null {
  if (options.enabled === false) return null;
  return adapter.rsa_signer(jwk as JsonWebKey, alg, options.library ?? LIBCRYPTO_NAMES);
}
