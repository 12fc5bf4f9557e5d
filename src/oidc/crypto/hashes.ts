/**
 * ID Token hash claims: at_hash and c_hash (OIDC Core §3.1.3.6 and §3.3.2.11).
 *
 * "the base64url encoding of the left-most half of the hash of the octets of the ASCII
 * representation of the access_token value, where the hash algorithm used is the hash algorithm
 * used in the alg Header Parameter of the ID Token's JOSE Header."
 *
 * EdDSA: JWA names no hash for it, so the hash is the one the signature scheme uses. For Ed25519
 * that is SHA-512 (RFC 8032 §5.1), as agreed by the OpenID Connect WG
 * (https://bitbucket.org/openid/connect/issues/1125) and done by panva/oidc-token-hash, go-jose
 * users (zitadel/oidc) and openidconnect-rs. We only sign EdDSA with Ed25519 keys (Ed448 would be
 * SHAKE256 with 114 bytes of output).
 */
import { createHash } from "node:crypto";

export type HashedAlg = "RS256" | "PS256" | "ES256" | "EdDSA" | "RS384" | "PS384" | "ES384" | "RS512" | "PS512" | "ES512";

const DIGEST: Record<HashedAlg, "sha256" | "sha384" | "sha512"> = {
  RS256: "sha256",
  PS256: "sha256",
  ES256: "sha256",
  RS384: "sha384",
  PS384: "sha384",
  ES384: "sha384",
  RS512: "sha512",
  PS512: "sha512",
  ES512: "sha512",
  EdDSA: "sha512", // Ed25519 only (see above)
};

/** Left-most half of the alg's hash of the value, base64url without padding. */
export function token_hash(value: string, alg: HashedAlg): string {
  const digest_name = DIGEST[alg];
  if (!digest_name) throw new Error(`No hash defined for alg ${String(alg)}`);
  const digest = createHash(digest_name).update(value, "ascii").digest();
  return digest.subarray(0, digest.length / 2).toString("base64url");
}

/** at_hash of an access token for an ID Token signed with `alg` (OIDC Core §3.1.3.6). */
export function at_hash(access_token: string, alg: HashedAlg): string {
  return token_hash(access_token, alg);
}

/** c_hash of an authorization code for an ID Token signed with `alg` (OIDC Core §3.3.2.11). */
export function c_hash(code: string, alg: HashedAlg): string {
  return token_hash(code, alg);
}
