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

/**
 * Every form a token is made for, and the text its HMAC is computed over: one token per purpose,
 * so a token of one form does not fit another. `{subject}` is what a token of that purpose is
 * also bound to, given to `form_token` as its third argument.
 */
export const FORM_PURPOSES = {
  /** The account page's forms, keyed by the session cookie (account_guard.ts). */
  account: "account-csrf",
  /** The admin console's forms, keyed by the session cookie (admin/console.ts). */
  admin_console: "admin-console-csrf",
  /** One destructive console action on one object; the subject names both (admin/console.ts `confirmation_token`). */
  admin_confirm: "admin-console-confirm:{subject}",
  /** The forms of one interaction (sign-in, consent, two-factor); the subject is its id (authorize/interactions.ts). */
  interaction: "csrf:{subject}",
  /** The account page's own sign-in, by password or passkey (http/endpoints/account/login.ts). */
  account_login: "csrf:account-login",
  /** The code form of the device verification page (http/endpoints/device/verification.ts). */
  device: "csrf:device",
  /** The sign-out confirmation; the subject is the values it confirms (logout/confirmation.ts). */
  logout: "logout:{subject}",
  // The pages outside an authorization request, keyed by the browser binding (page_forms.ts).
  forgot_password: "page:forgot-password",
  password_reset: "page:password-reset",
  verify_email: "page:verify-email",
  resend_verification: "page:resend-verification",
  invitation: "page:invitation",
  email_change: "page:email-change",
  signup: "page:signup",
} as const;

export type FormPurpose = keyof typeof FORM_PURPOSES;
/** The purposes of page_forms.ts. */
export type PagePurpose = { [P in FormPurpose]: (typeof FORM_PURPOSES)[P] extends `page:${string}` ? P : never }[FormPurpose];
/** The subject a purpose takes: one string where its text has `{subject}`, else none. */
type Subject<P extends FormPurpose> = (typeof FORM_PURPOSES)[P] extends `${string}{subject}` ? [subject: string] : [];

/** The token of the form `purpose` for the holder of `key`. */
export function form_token<P extends FormPurpose>(key: string, purpose: P, ...subject: Subject<P>): string {
  const text = FORM_PURPOSES[purpose].replace("{subject}", () => subject[0] ?? "");
  return createHmac("sha256", key).update(text).digest("base64url");
}

/** The 403 page of a form whose token does not fit; `advice` says what to do instead. */
export function expired_form(advice: string): PageError {
  return new PageError("This form has expired", advice, "access_denied");
}

/** Rejects (expired_form) a token that is missing, or not `expected` (null: none can fit). */
export function check_form_token(given: string | undefined, expected: string | null, advice: string): void {
  if (given === undefined || expected === null || !constant_time_equal(given, expected)) throw expired_form(advice);
}
