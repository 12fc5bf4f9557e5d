/**
 * Administering users: the rules `idp users` (src/cli/users.ts) and the admin API
 * (src/http/endpoints/admin/users/) share. What is shown of a user, how one is created with a
 * password, disabled, and has their second factors removed. Raises AdminError; no HTTP.
 */
import type { Config } from "../../config/schema.ts";
import { hash_password } from "../../platform/passwords.ts";
import { StoreConflictError, type NewUser, type Store, type UnixSeconds, type UserRow } from "../../store/types.ts";
import { username_form_problem } from "../../store/usernames.ts";
import { check_password_policy } from "../account/password_policy.ts";
import { end_user_sessions } from "../sessions.ts";
import { AdminError, invalid_field } from "./errors.ts";

export const USERNAME = /^[\p{L}\p{N}._@+-]{1,64}$/u;
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const PHONE = /^\+?[0-9][0-9 ().-]{2,31}$/;

/** What is shown of a user: everything but the password hash and the TOTP secret (an allow-list). */
export type PublicUser = Omit<UserRow, "password_hash" | "totp_secret"> & { totp_enabled: boolean };

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

/**
 * For a user who lost their authenticator app and recovery codes (or whose account was taken
 * over and given someone else's app): removes the TOTP secret and the recovery codes, and ends
 * the sessions, so the next sign-in is with the password alone and the user can set up the app
 * again from the account page. Conflict when there is nothing to remove.
 */
export async function reset_second_factors(store: Store, user: UserRow, now: UnixSeconds): Promise<SessionsEnded> {
  if (user.totp_secret === null && user.totp_enabled_at === null) throw new AdminError("conflict", `user "${user.username}" has no two-step verification to reset`);
  await store.update_user(user.id, { totp_secret: null, totp_enabled_at: null });
  await store.set_recovery_codes(user.id, []);
  return end_user_sessions(store, user.id, now);
}

/**
 * Disabling refuses every later sign-in (account/account_status.ts) and ends what is open now:
 * sessions, and the tokens issued to the user.
 */
export async function disable_user(store: Store, user: UserRow, now: UnixSeconds): Promise<{ user: UserRow } & SessionsEnded> {
  const updated = await store.update_user(user.id, { status: "disabled" });
  if (updated === null) throw new AdminError("not_found", `no user "${user.id}"`);
  return { user: updated, ...(await end_user_sessions(store, user.id, now)) };
}
