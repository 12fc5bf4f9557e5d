/**
 * The password step of both sign-in pages (an application's, /interaction/:id/login, and the
 * account page's, /account/login). A wrong password and an unknown username get the same
 * answer after the same argon2id work, so the pages do not reveal which usernames exist (OWASP
 * Authentication Cheat Sheet); attempts are throttled (limits/login.ts), counted and audited.
 * LDAP binds of users (ldap/binds.ts) come through here too: one throttle for every password.
 *
 * A password hash imported from another provider (crypto/foreign_hashes.ts: bcrypt, PBKDF2,
 * scrypt, argon2i/d) is verified in its own scheme, then replaced by our argon2id on success
 * (audited once as `password_rehashed`), so each imported user pays the foreign scheme once.
 */
import { record_event } from "../audit.ts";
import { hash_password, verify_password, verify_password_or_dummy } from "../../platform/passwords.ts";
import { foreign_kind, is_foreign_hash, verify_foreign_hash } from "../crypto/foreign_hashes.ts";
import { login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../limits/login.ts";
import type { Provider } from "../provider.ts";
import type { JsonObject, UserRow } from "../../store/types.ts";

export const WRONG_CREDENTIALS = "Wrong username or password.";

/**
 * The user when `password` is theirs; null (a failure recorded) otherwise. `details` go into the
 * failure's audit event (an LDAP bind says `via: "ldap"`, ldap/binds.ts).
 */
export async function check_credentials(
  idp: Provider,
  username: string,
  password: string,
  ip: string,
  client_id: string | null,
  details: JsonObject | null = null,
): Promise<UserRow | null> {
  // Reserve, then verify, then release (limits/login.ts): a refused attempt (429) does no
  // password work, and concurrent guesses cannot all pass the check before one is counted.
  const attempt = await reserve_login_attempt(idp, ip, username);
  const user = username === "" ? null : await idp.store.get_user_by_username(username);
  // A user without a password ("": invited, or signing in another way) costs the same dummy
  // verification as an unknown username and fails like a wrong password.
  const stored = user === null || user.password_hash === "" ? null : user.password_hash;
  const foreign = stored !== null && is_foreign_hash(stored);
  const ok = foreign ? await verify_foreign_hash(password, stored) : await verify_password_or_dummy(password, stored, idp.config.argon2);
  idp.metrics.login(ok && user !== null ? "success" : "failure");
  if (ok && user !== null) {
    await release_login_attempt(idp, attempt);
    return foreign ? await rehash(idp, user, password, ip, client_id) : user;
  }
  await login_attempt_failed(idp, attempt);
  await record_event(idp, { type: "login", outcome: "failure", user_id: user?.id ?? null, client_id, ip, details });
  return null;
}

/**
 * Whether `password` is the signed-in user's own, for the pages that ask for it again before a
 * change (the account pages, the admin console's re-authentication): the same check as signing
 * in, so a user whose hash was imported (never signed in with a password since) can confirm it
 * too, and the hash is replaced by argon2id on success. The caller throttles (limits/login.ts).
 */
export async function confirm_password(idp: Provider, user: UserRow, password: string, ip: string): Promise<boolean> {
  const stored = user.password_hash;
  if (stored === "" || !is_foreign_hash(stored)) return verify_password(password, stored);
  if (!(await verify_foreign_hash(password, stored))) return false;
  await rehash(idp, user, password, ip, null);
  return true;
}

/**
 * Replaces the user's foreign hash with argon2id of the password just verified. Only if the row
 * did not change meanwhile (a password reset in between wins); audited once, with the old kind.
 */
async function rehash(idp: Provider, user: UserRow, password: string, ip: string, client_id: string | null): Promise<UserRow> {
  const password_hash = await hash_password(password, idp.config.argon2);
  const updated = await idp.store.update_user(user.id, { password_hash }, { if_version: user.version });
  if (updated === null) return user;
  await record_event(idp, { type: "password_rehashed", outcome: "success", user_id: user.id, client_id, ip, details: { from: foreign_kind(user.password_hash) ?? "unknown" } });
  return updated;
}
