/**
 * The rules a new password must meet, one function for every place a password is chosen: the
 * account page, a password reset, sign-up and invitations, and the CLI.
 *
 * NIST SP 800-63B §5.1.1.2 (memorized secrets): a minimum length (at least 8; `passwords.min_length`,
 * 10 by default), a maximum that still allows long passphrases (at least 64; `passwords.max_length`,
 * 1024 by default, which also bounds the argon2id input), no composition rules, and a check
 * against "passwords obtained from previous breach corpuses" and "commonly-used" ones (the list in
 * lists/common_passwords.txt) and against "context-specific words, such as the name of the
 * service, the username": here the username and the e-mail address's local part. Each refusal is
 * one sentence that names the rule, so the person knows what to change.
 */
import type { Config } from "../../config/schema.ts";
import { is_common_password } from "../../platform/common_passwords.ts";

export type PasswordRules = Config["passwords"];

/** Who the password is for: a password may not be, or contain, their name or address. */
export type PasswordOwner = { username?: string | null; email?: string | null };

/** Parts of a name shorter than this are not looked for inside a password (a 2-letter name is in too many words). */
const MIN_CONTAINED = 3;

/** Case- and compatibility-insensitive form for the comparisons below. */
function fold(value: string): string {
  return value.normalize("NFKC").toLowerCase();
}

/** Length in characters as people count them (code points, not UTF-16 units). */
function length_of(password: string): number {
  return [...password].length;
}

/**
 * Why `password` is refused, as a sentence naming the rule; null when it meets every rule.
 * Checked in order: length, common passwords, the owner's username and e-mail address.
 */
export function check_password_policy(password: string, owner: PasswordOwner, rules: PasswordRules): string | null {
  const length = length_of(password);
  if (length < rules.min_length) return `The password is too short: use at least ${rules.min_length} characters.`;
  if (length > rules.max_length) return `The password is too long: use at most ${rules.max_length} characters.`;
  if (is_common_password(password)) return "This password is one of the most common passwords, which attackers try first: choose another.";
  const folded = fold(password);
  const names: { value: string; what: string }[] = [];
  if (owner.username) names.push({ value: fold(owner.username), what: "your username" });
  if (owner.email) {
    const at = owner.email.lastIndexOf("@");
    names.push({ value: fold(at === -1 ? owner.email : owner.email.slice(0, at)), what: "your e-mail address" });
  }
  for (const { value, what } of names) {
    if (value === "") continue;
    if (folded === value || (length_of(value) >= MIN_CONTAINED && folded.includes(value))) {
      return `The password must not be or contain ${what}.`;
    }
  }
  return null;
}

/** The rules in one line, for the hint under a new-password field. */
export function password_policy_hint(rules: PasswordRules): string {
  return `At least ${rules.min_length} characters, not a common password, and not your username or e-mail address. A few unrelated words make a strong password.`;
}
