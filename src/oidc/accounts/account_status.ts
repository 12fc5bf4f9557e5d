/**
 * Which accounts may sign in (users.status, migration 007): only `active` ones. The sign-in
 * pages check it after a correct password, so the refusal can say what to do; starting a
 * session checks it again (signin/sessions.ts) whatever way the user signed in.
 *
 * - `unverified`: signed up, the e-mail address not proven yet: confirm it (the page offers to
 *   send the link again);
 * - `invited`: no password chosen yet: use the invitation link;
 * - `disabled`: an administrator turned the account off.
 *
 * A user without a password (`password_hash` ""; invited, or signing in another way) never gets
 * this far with a password: the password check fails for them like a wrong password
 * (signin/password.ts).
 *
 * The status also holds after sign-in: tokens and codes are only worth something while their
 * user is active (`is_active_user`): the code, device and refresh grants answer invalid_grant
 * (RFC 6749 §5.2), /userinfo invalid_token (RFC 6750 §3.1), introspection `active: false`
 * (RFC 7662 §2.2). Disabling also revokes the tokens (admin/users.ts `change_user`).
 */
import { PageError } from "../errors.ts";
import type { UserRow, UserStatus } from "../../store/types.ts";

export type StatusRefusal = { status: Exclude<UserStatus, "active">; title: string; message: string };

const REFUSALS: { readonly [S in StatusRefusal["status"]]: { title: string; message: string } } = {
  unverified: {
    title: "Confirm your e-mail address first",
    message: "We sent a confirmation link to your e-mail address when you signed up. Open it to finish creating your account, then sign in.",
  },
  invited: {
    title: "Use your invitation link",
    message: "This account was created with an invitation and has no password yet. Open the link in the invitation e-mail to choose one.",
  },
  disabled: {
    title: "This account is disabled",
    message: "An administrator has turned this account off. Ask them if you think this is a mistake.",
  },
};

/** Why this user may not sign in; null for an active account. */
export function sign_in_refusal(user: UserRow): StatusRefusal | null {
  if (user.status === "active") return null;
  const refusal = REFUSALS[user.status] ?? REFUSALS.disabled;
  return { status: user.status in REFUSALS ? user.status : "disabled", ...refusal };
}

/**
 * Whether the user of a token or code may still use it: the account exists and is active. A
 * disabled account gets nothing more from tokens issued before, whatever revoked them or not.
 */
export function is_active_user(user: UserRow | null): user is UserRow {
  return user !== null && user.status === "active";
}

/** The error page of a refusal, for sign-in paths that have no page of their own (403). */
export function not_active(user: UserRow): PageError | null {
  const refusal = sign_in_refusal(user);
  return refusal === null ? null : new PageError(refusal.title, refusal.message, "access_denied");
}
