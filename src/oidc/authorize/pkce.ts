/**
 * Proof Key for Code Exchange (RFC 7636), S256 only: `plain` sends the verifier itself through
 * the browser and is refused (RFC 9700 §2.1.1: "SHOULD use S256").
 */
import { constant_time_equal, sha256 } from "../crypto/secrets.ts";

export const CHALLENGE_METHODS = ["S256"] as const;

/**
 * RFC 7636 §4.2: code_challenge = BASE64URL(SHA256(code_verifier)), which is always 43
 * base64url characters; anything else can never match a verifier.
 */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** RFC 7636 §4.1: code_verifier = 43*128unreserved. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export type ChallengeCheck = { ok: true; challenge: string | null; method: "S256" | null } | { ok: false; description: string };

/** Checks code_challenge and code_challenge_method of an authorization request. */
export function check_challenge(challenge: string | undefined, method: string | undefined, required: boolean): ChallengeCheck {
  if (challenge === undefined || challenge === "") {
    if (method !== undefined) return { ok: false, description: "code_challenge_method was sent without code_challenge" };
    // RFC 9700 §2.1.1: public clients MUST use PKCE.
    return required ? { ok: false, description: "this client must use PKCE: send code_challenge with code_challenge_method=S256" } : { ok: true, challenge: null, method: null };
  }
  // RFC 7636 §4.3: a missing method means "plain", which we do not accept.
  if (method !== "S256") {
    return {
      ok: false,
      description: method === undefined || method === "plain" ? "code_challenge_method must be S256 (plain is not supported)" : `unsupported code_challenge_method ${method}`,
    };
  }
  if (!CHALLENGE.test(challenge)) return { ok: false, description: "code_challenge must be 43 base64url characters (the S256 of the verifier)" };
  return { ok: true, challenge, method };
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge, compared in constant time. */
export function verify_s256(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  return constant_time_equal(sha256(verifier), challenge);
}
