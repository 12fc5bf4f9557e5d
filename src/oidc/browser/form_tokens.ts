/**
 * Form tokens against cross-site request forgery. Every form of the sign-in, account and
 * sign-out pages carries HMAC-SHA256(key, purpose): the key is a value only this browser holds
 * (an HttpOnly cookie, never in a page), the purpose says which form it is for (an interaction,
 * the account forms, the values of a sign-out). A page of another site cannot compute it, and
 * a token of one form does not fit another. Compared in constant time.
 */
import { createHmac } from "node:crypto";
import { constant_time_equal } from "../crypto/secrets.ts";
import { PageError } from "../errors.ts";

export function form_token(key: string, purpose: string): string {
  return createHmac("sha256", key).update(purpose).digest("base64url");
}

/** The 403 page of a form whose token does not fit; `advice` says what to do instead. */
export function expired_form(advice: string): PageError {
  return new PageError("This form has expired", advice, "access_denied");
}

/** Rejects (expired_form) a token that is missing, or not `expected` (null: none can fit). */
export function check_form_token(given: string | undefined, expected: string | null, advice: string): void {
  if (given === undefined || expected === null || !constant_time_equal(given, expected)) throw expired_form(advice);
}
