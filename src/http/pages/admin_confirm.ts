/**
 * The confirmation page of a destructive or outage-causing console action (views/admin/confirm.eta):
 * it names the object and what will happen, and holds the only form that performs the action, in
 * a danger zone: the token of that action on that object (oidc/admin/console.ts
 * `confirmation_token`; the console's other forms' token does not fit) and the administrator's
 * password, or for an administrator without one a sign-in fresher than REAUTH_WINDOW_SECONDS. No
 * harmless form shares an input with it. A change the rules would refuse (oidc/admin/lockout.ts,
 * the admin group) is refused here already, saying why, with no form.
 *
 * Each object's page builds its `Danger` (http/endpoints/admin_console/*_confirm.ts); the POST
 * that performs the action rebuilds it and checks the form with `confirmation_problem`.
 */
import { check_confirmation_csrf, REAUTH_WINDOW_SECONDS, reauthentication_problem, type ConsoleSession } from "../../oidc/admin/console.ts";
import type { Provider } from "../../oidc/provider.ts";
import { console_url, console_values, type ConsolePage } from "./admin_console.ts";

/** A catalog message and its values (locales/*.json). */
export type Message = { key: string; values?: Record<string, string | number> };

export type Danger = {
  /** What kind of object, the action's name in its POST form, and the object (an id, a name): the form's token is bound to all three. */
  kind: "user" | "group" | "client" | "keys" | "upstream" | "resource" | "registration_token" | "saml_sp" | "app" | "ldap_account" | "webhook" | "attribute";
  action: string;
  subject: string;
  /** The console page it belongs to (the navigation). */
  page: ConsolePage;
  heading: Message;
  /** What will happen, in words (may hold <strong>). */
  consequence: Message;
  /** What names the object: a catalog label and the value as stored. */
  facts: { label: string; value: string; code?: boolean }[];
  button: Message;
  /** Where the form posts, with its hidden fields besides the token. */
  post: string;
  fields: Record<string, string>;
  /** Back to the object's page (Cancel). */
  back: string;
  /** Why the action is refused before it is asked for; no form then. */
  refusal: string | null;
  /** A client secret's rotation: the grace periods the old secret may keep working. */
  grace?: readonly { seconds: number; label: string }[];
};

/** The confirmation page of `action` below `path` (`/users/<id>`, `/keys`), with `query` (a group's name). */
export function confirm_url(idp: Provider, path: string, action: string, query: Record<string, string> = {}): string {
  return `${console_url(idp, path)}/confirm?${new URLSearchParams({ action, ...query })}`;
}

/** The token subject of a danger: `<kind>:<action>` on its object. */
function token_action(danger: Danger): string {
  return `${danger.kind}:${danger.action}`;
}

/** The template values of the confirmation page; `extra.error` says why the last try failed. */
export function danger_values(idp: Provider, admin: ConsoleSession, danger: Danger, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return console_values(idp, admin, danger.page, "Confirm", {
    heading_message: danger.heading,
    danger,
    fields: Object.entries(danger.fields).map(([name, value]) => ({ name, value })),
    confirm_csrf: admin.confirmation_token(token_action(danger), danger.subject),
    needs_password: admin.user.password_hash !== "",
    reauth_minutes: REAUTH_WINDOW_SECONDS / 60,
    error: danger.refusal,
    ...extra,
  });
}

/**
 * Checks a confirmation form: its token (a 403 page when it is not this confirmation's), then
 * the re-authentication. Null when both passed, else what to tell the administrator.
 */
export async function confirmation_problem(
  idp: Provider,
  admin: ConsoleSession,
  danger: Danger,
  input: { csrf?: string | undefined; password?: string | undefined },
  ip: string,
): Promise<string | null> {
  check_confirmation_csrf(admin, input.csrf, token_action(danger), danger.subject);
  return reauthentication_problem(idp, admin.user, admin.session.auth_time, input.password, ip);
}
