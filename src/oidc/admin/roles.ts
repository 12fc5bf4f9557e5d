/**
 * The console's roles and what each may do: the one permission table every console endpoint
 * checks on the server (http/pages/admin_console.ts `console_gate`), and the pages read to hide
 * what a role cannot do.
 *
 * - `admin`: members of IDP_ADMIN_GROUP: everything.
 * - `auditor`: members of IDP_AUDITOR_GROUP (unset: nobody): the dashboard, users, groups,
 *   applications, resource servers, registration tokens (never the tokens), SAML applications,
 *   protected applications, LDAP service accounts (never a password), webhooks (never a secret
 *   or a payload), the audit log, the keys
 *   and the settings, read-only. Every change is refused (403).
 * - `helpdesk`: members of IDP_HELPDESK_GROUP (unset: nobody): the dashboard, users and the audit
 *   log; on a user: reset the second factors, send a password reset link, end sessions, withdraw
 *   a consent an application holds (revoking its tokens). Never on
 *   someone who holds a console role (`may_act_on`): the helpdesk could otherwise
 *   remove an administrator's second factor and, knowing their password, become one. Never
 *   resource servers, registration tokens or keys: they decide who gets tokens for what.
 *
 * Every role needs a second factor in the sign-in (console.ts). Someone in several groups gets
 * what any of them allows.
 */
import type { UserRow } from "../../store/types.ts";
import type { Provider } from "../provider.ts";
import { group_name_key } from "../../store/group_names.ts";

export const CONSOLE_ROLES = ["admin", "auditor", "helpdesk"] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** Everything a console page shows or a console form does, by what it touches. */
export const CONSOLE_PERMISSIONS = [
  "view_dashboard",
  "view_users",
  "view_groups",
  "view_clients",
  /** Resource servers (RFC 8707): their URIs, scopes and token formats. */
  "view_resources",
  /** Initial access tokens for dynamic registration (RFC 7591 §3): ids, dates and uses, never a token. */
  "view_registration_tokens",
  "view_upstreams",
  /** SAML service providers: their metadata's endpoints and the operator's settings. */
  "view_saml",
  /** Applications behind the reverse proxy (forward authentication) and their rules. */
  "view_apps",
  /** LDAP service accounts: names, bind DNs, groups; never a password. */
  "view_ldap_accounts",
  /** Webhook subscriptions and their deliveries' states: URLs and events, never a secret or a payload. */
  "view_webhooks",
  /** Custom attribute definitions (oidc/attributes/): names, types, scopes, claim names. */
  "view_attributes",
  "view_audit",
  "view_keys",
  /** The effective configuration, the mail status and the outbox (no bodies, secrets masked). */
  "view_settings",
  /** Create or invite users. */
  "create_users",
  /** Edit a user's profile. */
  "edit_users",
  "enable_users",
  "disable_users",
  "delete_users",
  "send_reset",
  /** End one or every session of a user. */
  "end_sessions",
  "reset_second_factors",
  /** Withdraw a consent (grant) the user gave an application, and the application's tokens with it. */
  "revoke_consents",
  /** Create and delete groups, add and remove members (the admin group's too). */
  "manage_groups",
  "manage_clients",
  /** Add and remove resource servers. */
  "manage_resources",
  /** Create registration tokens (each shown once) and revoke them. */
  "manage_registration_tokens",
  "manage_upstreams",
  "manage_saml",
  "manage_apps",
  /** Add service accounts, rotate their passwords (each shown once), remove them. */
  "manage_ldap_accounts",
  /** Add subscriptions (each secret shown once), send test events, retry failed deliveries, remove subscriptions. */
  "manage_webhooks",
  /** Declare, change and remove custom attributes (removing one deletes every user's value of it). */
  "manage_attributes",
  "rotate_keys",
  "revoke_keys",
  /** Send a test message to one's own address (the settings page). */
  "send_test_mail",
] as const;
export type ConsolePermission = (typeof CONSOLE_PERMISSIONS)[number];

/** Role → what it may do. */
export const ROLE_PERMISSIONS: Readonly<Record<ConsoleRole, readonly ConsolePermission[]>> = {
  admin: CONSOLE_PERMISSIONS,
  auditor: [
    "view_dashboard",
    "view_users",
    "view_groups",
    "view_clients",
    "view_resources",
    "view_registration_tokens",
    "view_saml",
    "view_apps",
    "view_ldap_accounts",
    "view_webhooks",
    "view_attributes",
    "view_audit",
    "view_keys",
    "view_settings",
  ],
  helpdesk: ["view_dashboard", "view_users", "view_audit", "send_reset", "end_sessions", "reset_second_factors", "revoke_consents"],
};

/** The permissions of someone holding `roles` (the union). */
export function permissions_of(roles: readonly ConsoleRole[]): ReadonlySet<ConsolePermission> {
  return new Set(roles.flatMap((role) => ROLE_PERMISSIONS[role]));
}

/** Each configured role's group (group names compare without case). */
function role_groups(idp: Pick<Provider, "config">): [ConsoleRole, string][] {
  const { group, auditor_group, helpdesk_group } = idp.config.admin_console;
  return [
    ["admin", group],
    ...(auditor_group === undefined ? [] : [["auditor", auditor_group] as [ConsoleRole, string]]),
    ...(helpdesk_group === undefined ? [] : [["helpdesk", helpdesk_group] as [ConsoleRole, string]]),
  ];
}

/** The console roles the user's groups give (none: no console). */
export async function console_roles(idp: Provider, user_id: string): Promise<ConsoleRole[]> {
  const groups = new Set((await idp.store.list_user_groups(user_id)).map(group_name_key));
  return role_groups(idp)
    .filter(([, group]) => groups.has(group_name_key(group)))
    .map(([role]) => role);
}

/** The console role whose group `name` is (names compare as the store does, group_name_key), or null. */
export function role_of_group(idp: Pick<Provider, "config">, name: string): ConsoleRole | null {
  return role_groups(idp).find(([, group]) => group_name_key(group) === group_name_key(name))?.[0] ?? null;
}

/** Whether `name` is the group of a console role (admin, auditor or helpdesk). */
export function is_console_group(idp: Pick<Provider, "config">, name: string): boolean {
  return role_of_group(idp, name) !== null;
}

/**
 * Whether someone with `roles` may act on `user` at all: an admin on anyone; the other roles
 * only on people without a console role (not on an administrator, an auditor, a helpdesk member, themselves).
 */
export async function may_act_on(idp: Provider, roles: readonly ConsoleRole[], user: UserRow): Promise<boolean> {
  if (roles.includes("admin")) return true;
  return (await console_roles(idp, user.id)).length === 0;
}

/** The console's actions on a user (http/endpoints/admin_console/user_action.ts) and the permission each needs. */
export const USER_ACTION_PERMISSIONS = {
  enable: "enable_users",
  disable: "disable_users",
  delete: "delete_users",
  send_reset: "send_reset",
  end_session: "end_sessions",
  end_sessions: "end_sessions",
  reset_second_factors: "reset_second_factors",
  revoke_consent: "revoke_consents",
  remove_admin: "manage_groups",
} as const satisfies Record<string, ConsolePermission>;
