/**
 * A client's registered JWK Set (RFC 7591 §2 `jwks`), checked before it is stored: whoever
 * registers a client (open dynamic registration included) decides what lands in the database,
 * so the set is small, holds only public keys of the types we verify with, every member of each
 * key is one RFC 7517/7518 defines for that type, and each key imports (a key that does not
 * parse would only fail later, at the client's first assertion).
 *
 * - key types and members: RFC 7518 §6.2.1 (EC: crv, x, y), §6.3.1 (RSA: n, e), RFC 8037 §2
 *   (OKP: crv, x), plus the common members of RFC 7517 §4 (kty, use, key_ops, alg, kid, x5u,
 *   x5c, x5t, x5t#S256; and "ext", which WebCrypto writes); private members (d, p, q, dp, dq, qi, oth, k) are named as such;
 * - RSA keys of at least 2048 bits (RFC 7518 §3.3);
 * - at most JWKS_MAX_KEYS keys and JWKS_MAX_BYTES of JSON.
 */
import { createPublicKey } from "node:crypto";
import type { JsonObject } from "../../store/types.ts";

export const JWKS_MAX_BYTES = 8192;
export const JWKS_MAX_KEYS = 10;
export const RSA_MIN_BITS = 2048;

// RFC 7517 §4, and "ext" (IANA JWK registry, W3C WebCrypto): WebCrypto's exportKey writes it.
const COMMON_MEMBERS = ["kty", "use", "key_ops", "alg", "kid", "x5u", "x5c", "x5t", "x5t#S256", "ext"];
const PUBLIC_MEMBERS: Readonly<Record<string, readonly string[]>> = { RSA: ["n", "e"], EC: ["crv", "x", "y"], OKP: ["crv", "x"] };
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/** What is wrong with `value` as a client's public JWK Set, or null when it may be stored. */
export function public_jwks_problem(value: unknown): string | null {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (value === null || typeof value !== "object" || !Array.isArray(keys) || keys.length === 0) return 'must be a JWK Set: {"keys": [...]} with at least one key';
  if (keys.length > JWKS_MAX_KEYS) return `holds ${keys.length} keys; at most ${JWKS_MAX_KEYS}`;
  const size = new TextEncoder().encode(JSON.stringify(value)).length;
  if (size > JWKS_MAX_BYTES) return `is ${size} bytes; at most ${JWKS_MAX_BYTES}`;
  for (const [index, key] of keys.entries()) {
    const problem = public_jwk_problem(key);
    if (problem !== null) return `key ${index + 1}: ${problem}`;
  }
  return null;
}

function public_jwk_problem(key: unknown): string | null {
  if (key === null || typeof key !== "object" || Array.isArray(key)) return "is not a JWK object";
  const jwk = key as JsonObject;
  if (typeof jwk.kty !== "string") return "needs a kty (RFC 7517 §4.1)";
  const secret = PRIVATE_MEMBERS.find((member) => member in jwk);
  if (secret !== undefined) return `has the private member "${secret}"; register public keys only`;
  const members = PUBLIC_MEMBERS[jwk.kty];
  if (members === undefined) return `kty "${jwk.kty}" is not one of ${Object.keys(PUBLIC_MEMBERS).join(", ")}`;
  const unknown = Object.keys(jwk).find((member) => !members.includes(member) && !COMMON_MEMBERS.includes(member));
  if (unknown !== undefined) return `member "${unknown}" is not a ${jwk.kty} public key member (RFC 7517 §4, RFC 7518 §6)`;
  let imported;
  try {
    imported = createPublicKey({ key: jwk as never, format: "jwk" });
  } catch {
    return `is not a valid ${jwk.kty} public key`;
  }
  const bits = imported.asymmetricKeyDetails?.modulusLength;
  if (jwk.kty === "RSA" && (bits === undefined || bits < RSA_MIN_BITS)) return `an RSA key needs at least ${RSA_MIN_BITS} bits (RFC 7518 §3.3)`;
  return null;
}
