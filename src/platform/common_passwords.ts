/**
 * The list of common passwords the password policy refuses (lists/common_passwords.txt: source,
 * licence and how it was made in lists/README.md). Imported as text, so `bun build --compile`
 * embeds it in the executable; this runtime seam is the one place that knows how.
 */
import LIST from "../../lists/common_passwords.txt" with { type: "text" };

let common: Set<string> | undefined;

/** True when `password`, ignoring case, is on the list (NIST SP 800-63B §5.1.1.2 "commonly-used"). */
export function is_common_password(password: string): boolean {
  common ??= new Set(LIST.split("\n").filter((line) => line !== ""));
  return common.has(password.toLowerCase());
}

/** How many passwords the list holds (for tests and the start log). */
export function common_password_count(): number {
  common ??= new Set(LIST.split("\n").filter((line) => line !== ""));
  return common.size;
}
