/**
 * What an Assertion says of the sign-in (SAML Core §2.7.2.2 AuthnContextClassRef), from the
 * session's RFC 8176 amr (signin/methods.ts), so a service provider can tell a password from two
 * factors from a passkey:
 *
 * | the session's methods                     | AuthnContextClassRef                                                  |
 * | ----------------------------------------- | --------------------------------------------------------------------- |
 * | a device-bound passkey (amr `hwk`)        | urn:oasis:names:tc:SAML:2.0:ac:classes:SmartcardPKI (a key in a device, unlocked by the user: SAML AuthnContext §3.4) |
 * | a synced passkey (amr `swk`)              | urn:oasis:names:tc:SAML:2.0:ac:classes:SoftwarePKI (a key kept in software, SAML AuthnContext §3.4) |
 * | two factors otherwise (`otp`, `mfa`, …)   | https://refeds.org/profile/mfa (the REFEDS MFA Profile)               |
 * | a password, or an upstream's sign-in      | urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport     |
 */
import { has_second_factor } from "../signin/methods.ts";

export const AUTHN_CONTEXT = {
  device_passkey: "urn:oasis:names:tc:SAML:2.0:ac:classes:SmartcardPKI",
  synced_passkey: "urn:oasis:names:tc:SAML:2.0:ac:classes:SoftwarePKI",
  multi_factor: "https://refeds.org/profile/mfa",
  password: "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport",
} as const;

/** The class of a sign-in with these methods. */
export function authn_context_class(amr: readonly string[]): string {
  if (amr.includes("hwk")) return AUTHN_CONTEXT.device_passkey;
  if (amr.includes("swk")) return AUTHN_CONTEXT.synced_passkey;
  if (has_second_factor(amr)) return AUTHN_CONTEXT.multi_factor;
  return AUTHN_CONTEXT.password;
}
