/**
 * A password someone chooses on a form of their own (sign-up, an invitation): the password
 * policy (password_policy.ts), then the second copy. The message names the field it is about.
 */
import type { Provider } from "../provider.ts";
import { check_password_policy, password_policy_hint, type PasswordOwner } from "./password_policy.ts";

export type ChosenPasswordProblem = { field: "password" | "confirm"; message: string };

export function chosen_password_problem(idp: Provider, password: string, confirm: string, owner: PasswordOwner): ChosenPasswordProblem | null {
  const refused = check_password_policy(password, owner, idp.config.passwords);
  if (refused !== null) return { field: "password", message: refused };
  if (password !== confirm) return { field: "confirm", message: "Password again: the two passwords are not the same. Type them again." };
  return null;
}

/** The policy in words, shown next to the password field. */
export function password_hint(idp: Provider): string {
  return password_policy_hint(idp.config.passwords);
}
