/**
 * Authentication context classes (OIDC Core §2 `acr`, §3.1.2.1 `acr_values`) and the methods
 * behind them (RFC 8176 `amr`):
 *
 * | acr    | meaning                                                     | amr that satisfy it                          |
 * | ------ | ----------------------------------------------------------- | -------------------------------------------- |
 * | `pwd`  | any sign-in                                                 | ["pwd"] and everything below                 |
 * | `mfa`  | two factors                                                 | ["pwd","otp"], ["pwd","hwk"/"swk","mfa"], a passkey with user verification ["hwk"/"swk","user"] |
 * | `phr`  | phishing-resistant: a passkey took part (origin-bound key, WebAuthn §13.4.9) | any amr with "hwk" or "swk"   |
 * | `phrh` | phishing-resistant with a device-bound key (not synced)     | any amr with "hwk"                           |
 *
 * Passkey amr (RFC 8176 §2): "hwk" for a device-bound key, "swk" for a synced one (backup
 * eligible, WebAuthn §6.3.3: its private key lives in software-protected sync storage), "user"
 * for the user verification the authenticator did (PIN or biometric; which one is not reported).
 * A passkey after a password adds "mfa" (RFC 8176 §2: several factors).
 *
 * acr_values lists acceptable classes in order of preference. A session satisfies a request when
 * it satisfies at least one known class the client listed (unknown values are ignored); a
 * session that satisfies none is asked to sign in again (login_required with prompt=none). With
 * `acr_values=mfa pwd` a password is acceptable; `acr_values=mfa` requires two factors;
 * `acr_values=phr` requires a passkey. A user who has no way to satisfy it stops on an error page
 * that says how to set one up (no code is issued).
 *
 * A client's registered `default_acr_values` (OIDC Registration §2) stand in for acr_values when
 * a request has none (authorize/request.ts).
 *
 * `acr` is put in the ID Token only when the client sent acr_values, or has default_acr_values
 * (it is optional, §2): the first class of the list the sign-in satisfies, else the strongest it
 * reached.
 */
/**
 * The authentication method references (RFC 8176 §2 `amr`) this provider writes into a
 * session, or reads from an upstream's ID Token, and what each counts as here. Everything that
 * asks "was that a second factor?", "was a passkey used?" or "what does an upstream's sign-in
 * keep?" reads this one table.
 *
 * - `second_factor`: stands for a factor beyond the password (a session with one satisfies
 *   `mfa` and reaches the admin console);
 * - `phishing_resistant`: an origin-bound key took part (`phr`);
 * - `issued`: we put it in our own sessions (sms and tel are only ever read from upstreams);
 * - `from_upstream`: after an upstream's sign-in, the value is `kept` next to "fed", only
 *   counts towards "mfa" (`mfa`: its phishing resistance is the upstream's origin, not ours), or
 *   is `dropped`.
 */
export const AMR_TABLE = {
  pwd: { meaning: "a password", second_factor: false, phishing_resistant: false, issued: true, from_upstream: "kept" },
  otp: { meaning: "a one-time code (TOTP, RFC 6238) or a recovery code", second_factor: true, phishing_resistant: false, issued: true, from_upstream: "kept" },
  hwk: { meaning: "a device-bound passkey (not backup eligible)", second_factor: true, phishing_resistant: true, issued: true, from_upstream: "mfa" },
  swk: { meaning: "a synced passkey (backup eligible, WebAuthn §6.3.3)", second_factor: true, phishing_resistant: true, issued: true, from_upstream: "mfa" },
  user: { meaning: "user verification by the authenticator (PIN or biometric)", second_factor: false, phishing_resistant: false, issued: true, from_upstream: "dropped" },
  mfa: { meaning: "several factors", second_factor: true, phishing_resistant: false, issued: true, from_upstream: "kept" },
  fed: { meaning: "a sign-in through an upstream identity provider", second_factor: false, phishing_resistant: false, issued: true, from_upstream: "dropped" },
  sms: { meaning: "a code sent by text message (read from upstreams only)", second_factor: true, phishing_resistant: false, issued: false, from_upstream: "mfa" },
  tel: { meaning: "a telephone call (read from upstreams only)", second_factor: true, phishing_resistant: false, issued: false, from_upstream: "mfa" },
} as const satisfies Record<string, { meaning: string; second_factor: boolean; phishing_resistant: boolean; issued: boolean; from_upstream: "kept" | "mfa" | "dropped" }>;
export type Amr = keyof typeof AMR_TABLE;

const amr_where = (test: (facts: (typeof AMR_TABLE)[Amr]) => boolean): readonly string[] => (Object.keys(AMR_TABLE) as Amr[]).filter((value) => test(AMR_TABLE[value]));

/** Our own values that count as a second factor (the admin console asks for one). */
export const SECOND_FACTOR_AMR = amr_where((f) => f.second_factor && f.issued);
/** An upstream's values that mean a multi-factor sign-in there (`trust_upstream_mfa`). */
export const UPSTREAM_MFA_AMR = amr_where((f) => f.second_factor);
/** An upstream's values kept in the session next to "fed". */
export const KEPT_UPSTREAM_AMR = amr_where((f) => f.from_upstream === "kept");
/** The methods of a password sign-in, and of a password and a one-time code. */
export const AMR_PASSWORD: Amr[] = ["pwd"];
export const AMR_TWO_FACTORS: Amr[] = ["pwd", "otp"];
/** The `amr` of a session started through an upstream. */
export const AMR_FEDERATED: Amr = "fed";

/** Did these methods include a second factor of ours? */
export function has_second_factor(amr: readonly string[]): boolean {
  return amr.some((method) => SECOND_FACTOR_AMR.includes(method));
}

/** The methods of a passkey sign-in: alone (with user verification) or after a password (two factors). */
export function passkey_amr(backup_eligible: boolean, after_password: boolean): Amr[] {
  const key: Amr = backup_eligible ? "swk" : "hwk";
  return after_password ? ["pwd", key, "mfa"] : [key, "user"];
}

export const ACR_PASSWORD = "pwd";
export const ACR_TWO_FACTORS = "mfa";
export const ACR_PHISHING_RESISTANT = "phr";
export const ACR_PHISHING_RESISTANT_HARDWARE = "phrh";
/** What each class asks of a sign-in (README's table is generated from this). */
export const ACR_MEANING: Readonly<Record<string, string>> = {
  [ACR_PASSWORD]: "any sign-in",
  [ACR_TWO_FACTORS]: "two factors: a password and a code or a passkey, or a passkey with user verification",
  [ACR_PHISHING_RESISTANT]: "phishing-resistant: a passkey took part (it answers only for this origin)",
  [ACR_PHISHING_RESISTANT_HARDWARE]: "phishing-resistant with a device-bound (not synced) passkey",
};
/** Every class, weakest last in the table's order of strength (strongest first). */
export const ACR_VALUES_SUPPORTED = [ACR_TWO_FACTORS, ACR_PASSWORD, ACR_PHISHING_RESISTANT, ACR_PHISHING_RESISTANT_HARDWARE] as const;
/** The classes that need a passkey: not advertised when passkeys are off. */
export const PASSKEY_ACR_VALUES: readonly string[] = [ACR_PHISHING_RESISTANT, ACR_PHISHING_RESISTANT_HARDWARE];

/** The classes advertised in discovery and accepted at registration. */
export function acr_values_supported(passkeys: boolean): string[] {
  return ACR_VALUES_SUPPORTED.filter((value) => passkeys || !PASSKEY_ACR_VALUES.includes(value));
}

const STRENGTH = [ACR_PHISHING_RESISTANT_HARDWARE, ACR_PHISHING_RESISTANT, ACR_TWO_FACTORS, ACR_PASSWORD];

function known(acr_values: readonly string[]): string[] {
  return acr_values.filter((value) => (ACR_VALUES_SUPPORTED as readonly string[]).includes(value));
}

/** Did a passkey take part in this authentication? */
export function used_passkey(amr: readonly string[]): boolean {
  return amr.some((method) => Object.hasOwn(AMR_TABLE, method) && AMR_TABLE[method as Amr].phishing_resistant);
}

/** Does an authentication with these methods reach class `acr`? */
export function satisfies(acr: string, amr: readonly string[]): boolean {
  switch (acr) {
    case ACR_PASSWORD:
      return true;
    case ACR_TWO_FACTORS:
      return amr.includes("otp") || amr.includes("mfa") || (used_passkey(amr) && amr.includes("user"));
    case ACR_PHISHING_RESISTANT:
      return used_passkey(amr);
    case ACR_PHISHING_RESISTANT_HARDWARE:
      return amr.includes("hwk");
    default:
      return false;
  }
}

/** True when the request accepts nothing less than two factors (a password alone will not do). */
export function requires_two_factors(acr_values: readonly string[]): boolean {
  const classes = known(acr_values);
  return classes.length > 0 && !classes.includes(ACR_PASSWORD);
}

/** True when only a passkey can satisfy the request (every known class asked for is phishing-resistant). */
export function requires_passkey(acr_values: readonly string[]): boolean {
  const classes = known(acr_values);
  return classes.length > 0 && classes.every((value) => PASSKEY_ACR_VALUES.includes(value));
}

/** The strongest class an authentication reached, from its methods. */
export function acr_of(amr: readonly string[]): string {
  return STRENGTH.find((acr) => satisfies(acr, amr)) ?? ACR_PASSWORD;
}

/** Must a user signed in with `amr` sign in again for this request? */
export function needs_second_factor(acr_values: readonly string[], amr: readonly string[]): boolean {
  const classes = known(acr_values);
  return classes.length > 0 && !classes.some((acr) => satisfies(acr, amr));
}

/** The `acr` claim of the ID Token: only when the client asked (acr_values sent). */
export function acr_claim(acr_values: readonly string[], amr: readonly string[]): string | null {
  if (acr_values.length === 0) return null;
  return known(acr_values).find((acr) => satisfies(acr, amr)) ?? acr_of(amr);
}
