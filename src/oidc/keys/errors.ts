/** Errors the key ring raises. */
import { errors } from "jose";

/**
 * Why a JWT presented back to us (id_token_hint, logout) was refused:
 * - malformed: not a compact JWS with a JSON claims set, or no kid.
 * - unknown_key: the kid is none of our published keys (never ours, or retired past retire_at).
 * - bad_signature: the signature, or the alg for that kid, does not match.
 * - expired: past exp (and `allow_expired` was not given).
 * - invalid_claims: iss/aud/typ/nbf do not match what the caller asked for.
 */
export type TokenVerifyFailure = "malformed" | "unknown_key" | "bad_signature" | "expired" | "invalid_claims";

export class TokenVerifyError extends Error {
  override name = "TokenVerifyError";
  constructor(
    readonly reason: TokenVerifyFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The key ring was asked for something it cannot do (an alg it is not configured for). */
export class KeyRingError extends Error {
  override name = "KeyRingError";
}

/** Maps what jose throws while verifying to a TokenVerifyError. */
export function to_verify_error(error: unknown): TokenVerifyError {
  if (error instanceof TokenVerifyError) return error;
  if (error instanceof errors.JWTExpired) return new TokenVerifyError("expired", "JWT is expired", { cause: error });
  if (error instanceof errors.JWTClaimValidationFailed) return new TokenVerifyError("invalid_claims", error.message, { cause: error });
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JOSEAlgNotAllowed) {
    return new TokenVerifyError("bad_signature", "JWT signature does not verify", { cause: error });
  }
  return new TokenVerifyError("malformed", "JWT is malformed", { cause: error });
}
