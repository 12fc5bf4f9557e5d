/**
 * The one rule that says when two usernames are the same account. It lives in the store because
 * both the store (the unique `username_key` column, lookups) and the rules (oidc/limits/login.ts:
 * the throttle's counter keys) use it, and the store may not import the rules (docs/ARCHITECTURE.md).
 *
 * Unicode compatibility normalisation and case folding, in the spirit of RFC 8265 §3.3.2 (the
 * PRECIS UsernameCaseMapped profile: width mapping, case mapping, normalisation), so that
 * spellings a person reads as one name reach one account and one set of counters: an NFD
 * "josé" (e + U+0301) and an NFC "josé", a fullwidth "ａｌｉｃｅ" and "alice", "ALICE" and "alice".
 * `toLowerCase` is the full Unicode case mapping; NFKC again after it, because lowering can
 * leave a string that is not in NFKC. (OWASP Authentication Cheat Sheet: "usernames should be
 * case-insensitive"; a throttle keyed on a different spelling than the account is no throttle.)
 */

/** The key of a username: equal keys are the same account, the same throttle counters. */
export function username_key(username: string): string {
  return username.normalize("NFKC").toLowerCase().normalize("NFKC");
}

/**
 * The stored spelling of a new username: its NFC form (canonically equivalent spellings look
 * the same, so nothing a person sees changes). Null when the name changes under compatibility
 * normalisation (a fullwidth "ａlice" would sign in as "alice"): such a name is refused at
 * creation, so an account's name is always shown as it signs in.
 */
export function stored_username(username: string): string | null {
  const canonical = username.normalize("NFC");
  return canonical.normalize("NFKC") === canonical ? canonical : null;
}

/** Why a new username is refused, naming the form it normalises to; null when it is fine. */
export function username_form_problem(username: string): string | null {
  if (stored_username(username) !== null) return null;
  return `username "${username}" is not in its Unicode normal form (NFKC): it would sign in as "${username.normalize("NFKC")}"; create it as "${username.normalize("NFKC")}" instead`;
}
