/**
 * Who may use the admin web console (/admin), its form tokens, re-authentication and audit.
 *
 * Access: the browser session of the account pages (browser/account_guard.ts) whose user is an active
 * member of the group `IDP_ADMIN_GROUP` (default `admins`), or of the auditor or helpdesk group
 * (roles.ts: what each role may do, checked by every console endpoint) AND whose sign-in included a second
 * factor (RFC 8176 amr: `otp`, `mfa`, `hwk`, `swk`; signin/methods.ts): a stolen password alone never
 * administers the provider. Checked on every request, so a removal from the group or a disabled
 * account ends the access at once.
 *
 * CSRF: the forms carry HMAC-SHA256(session cookie value, "admin-console-csrf"), the construction
 * of the account forms (browser/form_tokens.ts) with its own purpose: a token of the account page does not fit.
 *
 * Destructive actions (delete a user, group, application or sign-in provider, disable a user, end
 * all of a user's sessions, reset second factors, remove someone from the admin group, rotate a
 * secret or the keys, remove a resource server, revoke a registration token) are confirmed on a page of their own (http/pages/admin_confirm.ts), whose
 * form carries a token for that action on that object alone (`confirmation_token`: the console's
 * other forms' token does not fit it, nor does one action's fit another) and re-authentication:
 * the admin's password, checked and throttled like a sign-in; or, for an admin without a
 * password, a sign-in fresher than REAUTH_WINDOW_SECONDS.
 */
import { confirm_password } from "../signin/password.ts";
import type { JsonObject, UnixSeconds, UserRow } from "../../store/types.ts";
import { record_event } from "../audit.ts";
import { account_session, type AccountSession } from "../browser/account_guard.ts";
import { read_cookie, session_cookie_name, type CookieReader } from "../browser/cookies.ts";
import { check_form_token, form_token } from "../browser/form_tokens.ts";
import { login_attempt_failed, release_login_attempt, reserve_login_attempt } from "../limits/login.ts";
import type { Provider } from "../provider.ts";
import { has_second_factor } from "../signin/methods.ts";
import { console_roles, permissions_of, type ConsolePermission, type ConsoleRole } from "./roles.ts";
import { group_name_key } from "../../store/group_names.ts";

export const ADMIN_CONSOLE = "/admin";

/** How recent a sign-in stands in for a password at a destructive action (password-less admins). */
export const REAUTH_WINDOW_SECONDS = 5 * 60;

/** An administrator's console session: the account session, and the tokens of its confirmation forms. */
export type ConsoleSession = AccountSession & {
  /** The console roles of the user (roles.ts); never empty. */
  roles: readonly ConsoleRole[];
  /** What those roles allow (roles.ts ROLE_PERMISSIONS). */
  permissions: ReadonlySet<ConsolePermission>;
  /** The form token of the confirmation of `action` on `subject` (`user:delete:<id>`, `keys:rotate:keys`). */
  confirmation_token(action: string, subject: string): string;
};

export type ConsoleAccess =
  | { kind: "signed_out" }
  | { kind: "not_admin"; session: AccountSession }
  | { kind: "no_second_factor"; session: AccountSession }
  | { kind: "admin"; session: ConsoleSession };

/** Whether the user is a member of the console's group (IDP_ADMIN_GROUP; group names are case-insensitive). */
export async function in_admin_group(idp: Provider, user_id: string): Promise<boolean> {
  const groups = await idp.store.list_user_groups(user_id);
  return groups.some((name) => group_name_key(name) === group_name_key(idp.config.admin_console.group));
}

export async function console_access(idp: Provider, cookies: CookieReader): Promise<ConsoleAccess> {
  const session = await account_session(idp, cookies);
  if (session === null) return { kind: "signed_out" };
  const value = read_cookie(cookies, session_cookie_name(idp));
  const console_session = { ...session, csrf: form_token(value ?? "", "admin_console") };
  const roles = session.user.status === "active" ? await console_roles(idp, session.user.id) : [];
  if (roles.length === 0) return { kind: "not_admin", session: console_session };
  if (!has_second_factor(session.session.amr)) return { kind: "no_second_factor", session: console_session };
  return {
    kind: "admin",
    session: {
      ...console_session,
      roles,
      permissions: permissions_of(roles),
      confirmation_token: (action, subject) => form_token(value ?? "", "admin_confirm", `${action}:${subject}`),
    },
  };
}

/** Rejects a console form whose token is missing or not this session's (403 page). */
export function check_console_csrf(session: AccountSession, given: string | undefined): void {
  check_form_token(given, session.csrf, "The form was not sent from the admin console, or you signed in again since it was opened. Open the page again and retry.");
}

/**
 * Rejects (403 page) a destructive action's form whose token is not the one of its confirmation
 * page for that action on that object: a token of another console form does not fit.
 */
export function check_confirmation_csrf(session: ConsoleSession, given: string | undefined, action: string, subject: string): void {
  check_form_token(
    given,
    session.confirmation_token(action, subject),
    "The form was not sent from this action's confirmation page, or you signed in again since it was opened. Open the page again and retry.",
  );
}

/**
 * Re-authentication before a destructive action: null when it passed, else what to tell the
 * admin. A wrong password counts as a failed sign-in (limits/login.ts), so the form is no
 * oracle for guessing it.
 */
export async function reauthentication_problem(idp: Provider, admin: UserRow, auth_time: UnixSeconds, password: string | undefined, ip: string): Promise<string | null> {
  if (password === undefined || password === "") {
    if (admin.password_hash === "" && idp.now() - auth_time <= REAUTH_WINDOW_SECONDS) return null;
    return "This action needs your password to confirm it.";
  }
  const attempt = await reserve_login_attempt(idp, ip, admin.username);
  if (!(await confirm_password(idp, admin, password, ip))) {
    await login_attempt_failed(idp, attempt);
    return "Your password is not right: nothing was changed.";
  }
  await release_login_attempt(idp, attempt);
  return null;
}

export type ConsoleAction = {
  action: string;
  outcome?: "success" | "failure";
  user_id?: string | null;
  client_id?: string | null;
  details?: JsonObject;
};

/**
 * One audit event per console change, shaped like the admin API's (`admin_api`: `user_id` the
 * user acted on, `details.action`), with the acting person as `details.actor` (`user:<id>`)
 * where the API has its client.
 */
export async function record_console_event(idp: Provider, admin: UserRow, ip: string, event: ConsoleAction): Promise<void> {
  await record_event(idp, {
    type: "admin_console",
    outcome: event.outcome ?? "success",
    user_id: event.user_id ?? null,
    client_id: null,
    ip,
    details: {
      actor: `user:${admin.id}`,
      actor_username: admin.username,
      action: event.action,
      ...(event.client_id != null && { target_client_id: event.client_id }),
      ...(event.details ?? {}),
    },
  });
}
