/**
 * Authentication context classes (OIDC Core §2 `acr`, §3.1.2.1 `acr_values`) and the methods
 * behind them (RFC 8176 `amr`):
 *
 * | acr   | meaning                                   | amr            |
 * | ----- | ----------------------------------------- | -------------- |
 * | `pwd` | a password                                | ["pwd"]        |
 * | `mfa` | a password and a one-time code (RFC 6238) | ["pwd", "otp"] |
 *
 * acr_values lists acceptable classes in order of preference. Two factors are REQUIRED when every
 * class the client listed that we know is `mfa` (`acr_values=mfa`); with `acr_values=mfa pwd`
 * the password is acceptable. A signed-in session without a code is then asked to sign in again
 * (login_required with prompt=none). A user who has no authenticator app cannot satisfy it: the
 * sign-in stops on an error page that says how to set one up (no code is issued).
 *
 * A client's registered `default_acr_values` (OIDC Registration §2) stand in for acr_values when
 * a request has none (authorize_request.ts).
 *
 * `acr` is put in the ID Token only when the client sent acr_values, or has default_acr_values
 * (it is optional, §2).
 */
export const ACR_PASSWORD = "pwd";
export const ACR_TWO_FACTORS = "mfa";
export const ACR_VALUES_SUPPORTED = [ACR_TWO_FACTORS, ACR_PASSWORD] as const;

/** True when the request accepts nothing less than two factors. */
export function requires_two_factors(acr_values: readonly string[]): boolean {
  const known = acr_values.filter((value) => (ACR_VALUES_SUPPORTED as readonly string[]).includes(value));
  return known.length > 0 && known.every((value) => value === ACR_TWO_FACTORS);
}

/** The class an authentication reached, from its methods. */
export function acr_of(amr: readonly string[]): string {
  return amr.includes("otp") ? ACR_TWO_FACTORS : ACR_PASSWORD;
}

/** Must a user signed in with `amr` sign in again for this request? */
export function needs_second_factor(acr_values: readonly string[], amr: readonly string[]): boolean {
  return requires_two_factors(acr_values) && !amr.includes("otp");
}

/** The `acr` claim of the ID Token: only when the client asked (acr_values sent). */
export function acr_claim(acr_values: readonly string[], amr: readonly string[]): string | null {
  return acr_values.length === 0 ? null : acr_of(amr);
}
