/**
 * The signing algorithms the provider offers and how their keys are made (RFC 7518 §3, RFC 8037).
 * RS256 is mandatory (OIDC Core §15.1); PS256, ES256 and EdDSA (Ed25519) are on request.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import type { JsonObject } from "../../store/types.ts";

export const ALGS = ["RS256", "PS256", "ES256", "EdDSA"] as const;
export type Alg = (typeof ALGS)[number];

export function is_alg(value: unknown): value is Alg {
  return typeof value === "string" && (ALGS as readonly string[]).includes(value);
}

/** Key type and curve each alg needs; a stored key that does not match is never used. */
export const KEY_SHAPE: Record<Alg, { kty: string; crv?: string }> = {
  RS256: { kty: "RSA" },
  PS256: { kty: "RSA" },
  ES256: { kty: "EC", crv: "P-256" },
  EdDSA: { kty: "OKP", crv: "Ed25519" },
};

/** The JWK members a public key may carry (RFC 7517 §4, RFC 7518 §6, RFC 8037 §2). */
const PUBLIC_KEY_MEMBERS = ["kty", "crv", "n", "e", "x", "y"] as const;

/** A published key: public members only, never d, p, q, dp, dq, qi, oth or k. */
export type PublicJwk = {
  kty: string;
  crv?: string;
  n?: string;
  e?: string;
  x?: string;
  y?: string;
  kid: string;
  alg: Alg;
  use: "sig";
};

/** Copies the public members of a JWK (an allow-list, so private members cannot slip through). */
export function public_jwk(jwk: JsonObject | JWK, kid: string, alg: Alg): PublicJwk {
  const out: Record<string, string> = {};
  for (const name of PUBLIC_KEY_MEMBERS) {
    const value = (jwk as Record<string, unknown>)[name];
    if (typeof value === "string") out[name] = value;
  }
  return { ...(out as { kty: string }), kid, alg, use: "sig" };
}

export type GeneratedKey = { kid: string; alg: Alg; private_jwk: JsonObject; public_jwk: PublicJwk };

/**
 * Generates a key pair for `alg` (RSA 2048, P-256 or Ed25519). The kid is the RFC 7638 JWK
 * thumbprint (SHA-256) of the public key, so every instance names a key the same way.
 */
export async function generate_key(alg: Alg): Promise<GeneratedKey> {
  const { privateKey } = await generateKeyPair(alg, {
    extractable: true,
    ...(alg === "RS256" || alg === "PS256" ? { modulusLength: 2048 } : {}),
    ...(alg === "EdDSA" ? { crv: "Ed25519" } : {}),
  });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk, "sha256");
  const private_jwk = { ...(jwk as JsonObject), kid, alg, use: "sig" } as JsonObject;
  return { kid, alg, private_jwk, public_jwk: public_jwk(jwk, kid, alg) };
}
