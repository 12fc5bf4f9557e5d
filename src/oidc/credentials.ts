/**
 * The password step of both sign-in pages (an application's, /interaction/:id/login, and the
 * account page's, /account/login). A wrong password and an unknown username get the same
 * answer after the same argon2id work, so the pages do not reveal which usernames exist (OWASP
 * Authentication Cheat Sheet); attempts are throttled (login_throttle.ts), counted and audited.
 */
import { record_event } from "./audit.ts";
import { verify_password_or_dummy } from "../platform/passwords.ts";
import { check_login_allowed, record_login_failure } from "./login_throttle.ts";
import type { Provider } from "./provider.ts";
import type { UserRow } from "../store/types.ts";

export const WRONG_CREDENTIALS = "Wrong username or password.";

/** The user when `password` is theirs; null (a failure recorded) otherwise. */
export async function check_credentials(idp: Provider, username: string, password: string, ip: string, client_id: string | null): Promise<UserRow | null> {
  await check_login_allowed(idp, ip, username);
  const user = username === "" ? null : await idp.store.get_user_by_username(username);
  const ok = await verify_password_or_dummy(password, user?.password_hash ?? null, idp.config.argon2);
  idp.metrics.login(ok && user !== null ? "success" : "failure");
  if (ok && user !== null) return user;
  await record_login_failure(idp, ip, username);
  await record_event(idp, { type: "login", outcome: "failure", user_id: user?.id ?? null, client_id, ip });
  return null;
}
