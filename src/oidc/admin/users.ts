/**
 * Administering users: the rules `idp users` (src/cli/users.ts) and the admin API
 * (src/http/endpoints/admin/users/) share. What is shown of a user, how one is created with a
 * password, disabled, and has their second factors removed. Raises AdminError; no HTTP.
 */
import type { Config } from "../../config/schema.ts";
import { hash_password } from "../../platform/passwords.ts";
import { StoreConflictError, type NewUser, type Store, type UnixSeconds, type UserPatch, type UserRow } from "../../store/types.ts";
import { username_form_problem } from "../../store/usernames.ts";
import { address_key } from "../accounts/emails.ts";
import { void_address_links } from "../accounts/link_tokens.ts";
import { check_password_policy } from "../accounts/password_policy.ts";
import { end_user_sessions } from "../signin/sessions.ts";
import { AdminError, invalid_field } from "./errors.ts";
import { lost_write } from "./etag.ts";

export const USERNAME = /^[\p{L}\p{N}._@+-]{1,64}$/u;
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const PHONE = /^\+?[0-9][0-9 ().-]{2,31}$/;

/** What is shown of a user: everything but the password hash and the TOTP secret (an allow-list). */
export type PublicUser = Omit<UserRow, "password_hash" | "totp_secret" | "locale" | "version"> & { totp_enabled: boolean };

export function public_user(user: UserRow): PublicUser {
  return {
    id: user.id,
    username: user.username,
    status: user.status,
    name: user.name,
    given_name: user.given_name,
    family_name: user.family_name,
    picture: user.picture,
    email: user.email,
    email_verified: user.email_verified,
    phone_number: user.phone_number,
    phone_number_verified: user.phone_number_verified,
    address: user.address,
    totp_enabled: user.totp_enabled_at !== null,
    totp_enabled_at: user.totp_enabled_at,
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
}

/**
 * One spelling per account (store/usernames.ts): canonically equivalent input (a terminal's NFD)
 * is stored as NFC; a name that compatibility normalisation changes is refused.
 */
export function checked_username(typed: string): { username: string } | { problem: string } {
  const username = typed.normalize("NFC");
  if (!USERNAME.test(username)) return { problem: `username "${typed}" is not valid: use 1 to 64 letters, digits or . _ @ + -` };
  const form_problem = username_form_problem(username);
  return form_problem === null ? { username } : { problem: form_problem };
}

/** A new user with a password, checked against the password policy for its owner; conflict when the username is taken. */
export async function create_user_with_password(
  store: Store,
  config: Pick<Config, "argon2" | "passwords">,
  fields: Omit<NewUser, "password_hash">,
  password: string,
): Promise<UserRow> {
  const refused = check_password_policy(password, { username: fields.username, email: fields.email ?? null }, config.passwords);
  if (refused !== null) throw invalid_field("password", refused);
  const taken = () => new AdminError("conflict", `username "${fields.username}" is already taken`, [{ field: "username", message: "is already taken" }]);
  if (await store.get_user_by_username(fields.username)) throw taken();
  const password_hash = await hash_password(password, config.argon2);
  try {
    return await store.create_user({ ...fields, password_hash });
  } catch (error) {
    // A race with another administrator: reported like the early check.
    if (error instanceof StoreConflictError) throw taken();
    throw error;
  }
}

export type SessionsEnded = { sessions_ended: number; tokens_revoked: number };

/** What a reset of the second factors removed and ended. */
export type SecondFactorsReset = SessionsEnded & { totp_removed: boolean; passkeys_removed: number };

/**
 * For a user who lost their authenticator app, recovery codes or passkeys (or whose account was
 * taken over and given someone else's app or passkey): removes the TOTP secret, the recovery
 * codes and every passkey (a passkey is a second factor too, signin/second_factor.ts), and ends
 * the sessions, so the next sign-in is with the password alone (or, for an account without one,
 * through a password reset link) and the user can set up the app or a passkey again from the
 * account page. Conflict when there is neither a TOTP nor a passkey to remove.
 */
export async function reset_second_factors(store: Store, user: UserRow, now: UnixSeconds): Promise<SecondFactorsReset> {
  const totp = user.totp_secret !== null || user.totp_enabled_at !== null;
  const passkeys = await store.list_passkeys_for_user(user.id);
  if (!totp && passkeys.length === 0) throw new AdminError("conflict", `user "${user.username}" has no two-step verification or passkey to reset`);
  if (totp) await store.update_user(user.id, { totp_secret: null, totp_enabled_at: null });
  await store.set_recovery_codes(user.id, []);
  let passkeys_removed = 0;
  for (const passkey of passkeys) if (await store.delete_passkey(user.id, passkey.id)) passkeys_removed++;
  return { totp_removed: totp, passkeys_removed, ...(await end_user_sessions(store, user.id, now)) };
}

/** The members an administrator may change on a user (the API's PATCH, the console's edit form). */
export type UserChange = Omit<UserPatch, "status" | "password_hash" | "totp_secret" | "totp_enabled_at" | "username"> & { status?: "active" | "disabled" | undefined };

/**
 * Applies an administrator's change to `current`: the profile members given (null clears one),
 * and `status` (disabled: every later sign-in is refused and the sessions and tokens end now;
 * active: enabled again). Invited and unverified accounts become active through their own link
 * (accounts/invitations.ts, accounts/verification.ts), never here. An address that changes is no longer
 * verified, unless the same change says it is, and the links mailed to the old one (password
 * reset, verification, e-mail change, invitation) are voided (accounts/link_tokens.ts
 * `void_address_links`). Returns the audit action and what ended.
 */
export async function change_user(store: Store, current: UserRow, change: UserChange, now: UnixSeconds): Promise<{ user: UserRow; action: string; ended: SessionsEnded | null }> {
  const { status, ...profile } = change;
  if (status === "active" && (current.status === "invited" || current.status === "unverified")) {
    throw new AdminError("conflict", `user "${current.username}" is ${current.status}: the account becomes active when its link is followed`);
  }
  const patch: UserPatch = { ...profile } as UserPatch;
  if (profile.email !== undefined && profile.email !== current.email && profile.email_verified === undefined) patch.email_verified = false;
  if (profile.phone_number !== undefined && profile.phone_number !== current.phone_number && profile.phone_number_verified === undefined) patch.phone_number_verified = false;
  if (status === "active" && current.status === "disabled") patch.status = "active";
  // Disabling refuses every later sign-in (accounts/account_status.ts); what is open now ends below.
  const disabling = status === "disabled" && current.status !== "disabled";
  if (disabling) patch.status = "disabled";
  // One write, compare-and-set on the version `current` was read at (store/types/common.ts
  // IfVersion): the change was checked against that row (its ETag, the address it replaces), so
  // it lands only on that row. Of two changes checked against the same row, the second is
  // refused (precondition_failed) instead of silently overwriting the first.
  const user = Object.keys(patch).length === 0 ? current : await store.update_user(current.id, patch, { if_version: current.version });
  if (user === null) throw await lost_write(store.get_user_by_id(current.id), "user", current.id);
  // Another spelling of the same address (case, an IDN domain) reaches the same mailbox: its links stay.
  const moved =
    profile.email !== undefined && (profile.email === null || current.email === null ? profile.email !== current.email : address_key(profile.email) !== address_key(current.email));
  if (moved) await void_address_links(store, current.id);
  // Disabled: the sessions and the tokens issued to the user end now.
  if (disabling) return { user, action: "user_disabled", ended: await end_user_sessions(store, user.id, now) };
  return { user, action: status === "active" && current.status === "disabled" ? "user_enabled" : "user_updated", ended: null };
}
