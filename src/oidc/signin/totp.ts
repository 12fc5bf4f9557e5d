/**
 * Two-step verification with time-based one-time passwords (RFC 6238, TOTP) and single-use
 * recovery codes.
 *
 * - Codes are RFC 6238 with the parameters every authenticator app supports: HMAC-SHA-1, six
 *   digits, a 30-second step (RFC 6238 §4.1, §5.2), a 160-bit secret (RFC 4226 §4 R6).
 * - Drift: one step either side of now is accepted (RFC 6238 §5.2, §6: "at most one time step
 *   is allowed as the network delay").
 * - Replay: "the verifier MUST NOT accept the second attempt of the OTP after the successful
 *   validation has been issued for the first OTP" (RFC 6238 §5.2). Each accepted (user, step) is
 *   claimed with an atomic counter in the store, so every instance sees it.
 * - Recovery codes: ten 50-bit random codes, shown once, stored as SHA-256 (like every other
 *   random secret here) and consumed atomically by the store.
 *
 * The TOTP secret itself is stored as its base32 text: the provider must recompute codes, so it
 * cannot be hashed. Protect the database as you protect the signing keys it also holds.
 */
import { decodeBase32IgnorePadding, encodeBase32LowerCaseNoPadding, encodeBase32UpperCaseNoPadding } from "@oslojs/encoding";
import { createTOTPKeyURI, generateHOTP } from "@oslojs/otp";
import { constant_time_equal, sha256 } from "../crypto/secrets.ts";
import { count, COUNTERS } from "../limits/counters.ts";
import type { Provider } from "../provider.ts";
import { TOTP_DIGITS, TOTP_DRIFT_STEPS, TOTP_PERIOD } from "./totp_parameters.ts";

export const RECOVERY_CODE_COUNT = 10;

/** A new secret: 20 random bytes (160 bits, RFC 4226 §4 R6) as base32 without padding. */
export function new_totp_secret(): string {
  return encodeBase32UpperCaseNoPadding(crypto.getRandomValues(new Uint8Array(20)));
}

/** The secret in groups of four characters, easier to type into an app by hand. */
export function grouped_secret(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, "$1 ");
}

function secret_bytes(secret: string): Uint8Array {
  return decodeBase32IgnorePadding(secret.replace(/\s+/g, "").toUpperCase());
}

/** The otpauth:// URI authenticator apps read from the QR code (Key Uri Format). */
export function totp_key_uri(issuer_label: string, account: string, secret: string): string {
  return createTOTPKeyURI(issuer_label, account, secret_bytes(secret), TOTP_PERIOD, TOTP_DIGITS);
}

/** RFC 6238 §4.2: T = floor((Current Unix time - T0) / X), with T0 = 0. */
export function totp_step(now: number): number {
  return Math.floor(now / TOTP_PERIOD);
}

/** The code of one step (RFC 6238 §4.2: TOTP = HOTP(K, T)). */
export function totp_code(secret: string, step: number): string {
  return generateHOTP(secret_bytes(secret), BigInt(step), TOTP_DIGITS);
}

/** Six digits, with spaces or dashes some apps show between groups removed. */
export function normalize_totp(input: string): string | null {
  const digits = input.replace(/[\s-]/g, "");
  return /^\d{6}$/.test(digits) ? digits : null;
}

/**
 * The step whose code `code` is, within the accepted drift of `now`; null when it matches none.
 * Every candidate is compared (in constant time) so the time taken does not say which one hit.
 */
export function match_totp(secret: string, code: string, now: number): number | null {
  const digits = normalize_totp(code);
  if (digits === null) return null;
  const current = totp_step(now);
  let matched: number | null = null;
  for (let step = current - TOTP_DRIFT_STEPS; step <= current + TOTP_DRIFT_STEPS; step++) {
    if (constant_time_equal(totp_code(secret, step), digits) && matched === null) matched = step;
  }
  return matched;
}

/**
 * Claims a step for a user: true the first time, false when a code of that step was already
 * accepted (RFC 6238 §5.2). The counter (`totp_step_uses`) outlives the drift window, after
 * which the step can no longer match anyway.
 */
export async function claim_totp_step(idp: Provider, user_id: string, step: number): Promise<boolean> {
  const state = await count(idp, COUNTERS.totp_step_uses, { user_id, step });
  return !state.over;
}

/**
 * Checks a code and claims its step: "ok", "wrong" (no step matches) or "reused" (it matched a
 * step already used).
 */
export async function verify_totp(idp: Provider, user_id: string, secret: string, code: string): Promise<"ok" | "wrong" | "reused"> {
  const step = match_totp(secret, code, idp.now());
  if (step === null) return "wrong";
  return (await claim_totp_step(idp, user_id, step)) ? "ok" : "reused";
}

/** Recovery codes as shown: ten characters in two groups, "k7m2q-x9p4r". */
export function new_recovery_codes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    // 50 bits: 7 random bytes give 11 base32 characters; keep 10.
    const text = encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(7))).slice(0, 10);
    return `${text.slice(0, 5)}-${text.slice(5)}`;
  });
}

/** What is hashed: lower case, separators and spaces removed, so "K7M2Q X9P4R" still works. */
export function recovery_code_hash(code: string): string {
  return sha256(code.toLowerCase().replace(/[^a-z0-9]/g, ""));
}

/** Replaces the user's recovery codes with new ones; returns them (to show once). */
export async function issue_recovery_codes(idp: Provider, user_id: string): Promise<string[]> {
  const codes = new_recovery_codes();
  await idp.store.set_recovery_codes(user_id, codes.map(recovery_code_hash), idp.now());
  return codes;
}

/** True once for each unused recovery code of the user (atomic in the store). */
export async function use_recovery_code(idp: Provider, user_id: string, code: string): Promise<boolean> {
  const cleaned = code.toLowerCase().replace(/[^a-z0-9]/g, "");
  if (cleaned.length !== 10) return false;
  return idp.store.consume_recovery_code(user_id, recovery_code_hash(code), idp.now());
}
