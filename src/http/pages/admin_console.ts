/**
 * What the admin console's pages share (views/admin/*.eta): the gate every endpoint passes first
 * (oidc/admin/console.ts), the layout values with the console's nav and form token, the fixed
 * notices a POST-redirect-GET may name, and dates as text.
 */
import type { Html, Redirect } from "../../fw/response.ts";
import { ADMIN_CONSOLE, console_access, type ConsoleSession } from "../../oidc/admin/console.ts";
import { AdminError } from "../../oidc/admin/errors.ts";
import { CONSOLE_PERMISSIONS, type ConsolePermission } from "../../oidc/admin/roles.ts";
import { account_url } from "../../oidc/browser/account_guard.ts";
import type { CookieReader, CookieSettings } from "../../oidc/browser/cookies.ts";
import { return_cookie } from "../../oidc/browser/return_path.ts";
import type { Provider } from "../../oidc/provider.ts";
import { layout_values } from "./layout.ts";

/** The console's pages, each shown in the nav to whoever may see it (oidc/admin/roles.ts). */
export const CONSOLE_PAGES = [
  { key: "dashboard", path: "", text: "Dashboard", permission: "view_dashboard" },
  { key: "users", path: "/users", text: "Users", permission: "view_users" },
  { key: "groups", path: "/groups", text: "Groups", permission: "view_groups" },
  { key: "attributes", path: "/attributes", text: "Attributes", permission: "view_attributes" },
  { key: "clients", path: "/clients", text: "Applications", permission: "view_clients" },
  { key: "resources", path: "/resources", text: "Resource servers", permission: "view_resources" },
  { key: "registration_tokens", path: "/registration-tokens", text: "Registration tokens", permission: "view_registration_tokens" },
  { key: "upstreams", path: "/upstreams", text: "Sign-in providers", permission: "view_upstreams" },
  { key: "saml", path: "/saml", text: "SAML applications", permission: "view_saml" },
  { key: "apps", path: "/apps", text: "Protected applications", permission: "view_apps" },
  { key: "ldap_accounts", path: "/ldap-accounts", text: "LDAP service accounts", permission: "view_ldap_accounts" },
  { key: "webhooks", path: "/webhooks", text: "Webhooks", permission: "view_webhooks" },
  { key: "audit", path: "/audit", text: "Audit log", permission: "view_audit" },
  { key: "keys", path: "/keys", text: "Keys", permission: "view_keys" },
  { key: "settings", path: "/settings", text: "Settings", permission: "view_settings" },
] as const satisfies readonly { key: string; path: string; text: string; permission: ConsolePermission }[];

export type ConsolePage = (typeof CONSOLE_PAGES)[number]["key"];

export function console_url(idp: Provider, path = ""): string {
  return `${idp.config.issuer}${ADMIN_CONSOLE}${path}`;
}

/** The confirmations a redirect may name with `?done=`; nothing from the URL is shown itself. */
export const CONSOLE_NOTICES: Record<string, string> = {
  user_created: "The user was created.",
  user_invited: "The invitation was sent: the account becomes active when its link is followed.",
  user_updated: "The user was saved.",
  user_disabled: "The user was disabled: their sessions and tokens ended.",
  user_enabled: "The user was enabled.",
  user_deleted: "The user was deleted.",
  second_factors_reset: "Their two-step verification was removed and their sessions ended.",
  reset_sent: "A password reset link was sent.",
  session_ended: "The session was ended.",
  sessions_ended: "All of their sessions were ended.",
  consent_revoked: "The consent was withdrawn and the application's tokens revoked.",
  member_added: "The member was added.",
  member_removed: "The member was removed.",
  group_created: "The group was created.",
  group_deleted: "The group was deleted.",
  client_updated: "The application was saved.",
  client_deleted: "The application was deleted.",
  secret_grace_ended: "The previous secret no longer works.",
  upstream_created: "The sign-in provider was added. Register its redirect URI at the provider.",
  upstream_enabled: "The sign-in provider was enabled: its button is on the sign-in page.",
  upstream_disabled: "The sign-in provider was disabled: nobody signs in with it until it is enabled again.",
  upstream_deleted: "The sign-in provider was removed, with the accounts linked through it.",
  resource_created: "The resource server was added: applications may now ask for tokens for it.",
  resource_removed: "The resource server was removed: no new token is issued for it.",
  saml_sp_created: "The SAML application was added. Give it our metadata URL.",
  saml_sp_updated: "The SAML application was saved.",
  saml_sp_removed: "The SAML application was removed: nobody signs in to it any more.",
  app_created: "The protected application was added: the reverse proxy now asks before each request.",
  app_updated: "The protected application was saved.",
  app_removed: "The protected application was removed: the reverse proxy's checks for it are refused.",
  ldap_account_removed: "The service account was removed: its binds fail from now on.",
  webhook_test_queued: "A test event was queued: its delivery is below.",
  webhook_delivery_retried: "The delivery is queued again and attempted at once.",
  webhook_removed: "The webhook was removed: its receiver hears of nothing more.",
  attribute_created: "The attribute was declared: set its values on the users' pages.",
  attribute_updated: "The attribute was saved.",
  attribute_removed: "The attribute was removed, with every user's value of it.",
  registration_token_revoked: "The registration token was revoked: POST /register no longer accepts it.",
  keys_rotated: "New signing keys are in use; the old ones stay published until tokens signed with them expire.",
  key_rotated: "A new signing key is in use for this algorithm; the old one stays published until tokens signed with it expire.",
  key_revoked: "The key was revoked: it left the published keys, and tokens signed with it are refused.",
};

export function console_notice(done: string | undefined): string | null {
  return done !== undefined && Object.hasOwn(CONSOLE_NOTICES, done) ? CONSOLE_NOTICES[done]! : null;
}

export type ConsoleEndpoint = {
  view(template: string, values?: Record<string, unknown>, status?: number): Html;
  redirect_to(url: string, status?: number): Redirect;
  cookies: CookieReader;
  response: { headers: Headers };
  set_cookie(name: string, value: string, options: CookieSettings): void;
  request: { method: string; path: string };
};

/**
 * The console user's session, or the answer for anyone else: not signed in → the account sign-in;
 * signed in but in no console group → 403; in one without a second factor in this sign-in →
 * a page saying how to get one; a role that lacks `permission` (oidc/admin/roles.ts) → 403,
 * before anything is read or changed. Every console answer holds personal data: never cached.
 */
export async function console_gate(idp: Provider, endpoint: ConsoleEndpoint, permission: ConsolePermission): Promise<{ admin: ConsoleSession } | { refused: Html | Redirect }> {
  endpoint.response.headers.set("cache-control", "no-store");
  const access = await console_access(idp, endpoint.cookies);
  if (access.kind === "admin") {
    if (access.session.permissions.has(permission)) return { admin: access.session };
    return { refused: role_refusal(idp, endpoint, access.session) };
  }
  if (access.kind === "signed_out") {
    // Back to this page after the sign-in (oidc/browser/return_path.ts): a GET only, never a form's target.
    const back = endpoint.request.method === "GET" ? return_cookie(idp, endpoint.request.path) : null;
    if (back !== null) endpoint.set_cookie(back.name, back.value, back.options);
    return { refused: endpoint.redirect_to(account_url(idp, "login"), 303) };
  }
  const base = { ...layout_values(idp, "Admin console"), heading: "Admin console", notice: null, form: null, link: { href: account_url(idp), text: "Go to your account" } };
  if (access.kind === "not_admin") {
    return {
      refused: endpoint.view("message", { ...base, message: "Your account may not use the admin console. Ask an administrator to add you to the administrators' group." }, 403),
    };
  }
  return {
    refused: endpoint.view(
      "message",
      {
        ...base,
        message: "The admin console needs a second factor. Set up two-step verification or a passkey on your account page, then sign out and sign in again with it.",
      },
      403,
    ),
  };
}

/** Why the helpdesk may not act on someone (oidc/admin/roles.ts may_act_on). */
export const TARGET_REFUSAL = "This person holds a role in the admin console: only an administrator may change their account. Nothing was changed.";

/** The 403 page of a console user whose role does not allow what they asked for (nothing was changed). */
export function role_refusal(
  idp: Provider,
  endpoint: ConsoleEndpoint,
  session: ConsoleSession,
  message = "Your role in the admin console does not allow this: nothing was changed.",
): Html {
  return endpoint.view(
    "message",
    { ...console_values(idp, session, "dashboard", "Not allowed"), message, link: { href: console_url(idp), text: "Back to the admin console" }, form: null },
    403,
  );
}

/** What the session's roles allow, for the templates to hide the rest (`it.can.manage_groups`). */
export function console_can(session: ConsoleSession): Record<ConsolePermission, boolean> {
  return Object.fromEntries(CONSOLE_PERMISSIONS.map((permission) => [permission, session.permissions.has(permission)])) as Record<ConsolePermission, boolean>;
}

/** The values every console page's template gets. */
export function console_values(idp: Provider, admin: ConsoleSession, page: ConsolePage, title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...layout_values(idp, `${title} · Admin`),
    admin: true,
    heading: title,
    csrf: admin.csrf,
    me: admin.user.username,
    base: console_url(idp),
    can: console_can(admin),
    nav: CONSOLE_PAGES.filter((item) => admin.permissions.has(item.permission)).map((item) => ({
      href: console_url(idp, item.path),
      text: item.text,
      current: item.key === page,
    })),
    // The header (views/admin/_header.eta): the account page, and the sign-out (endpoints/admin_console/sign_out.ts).
    account_url: account_url(idp),
    sign_out_url: console_url(idp, "/sign-out"),
    notice: null,
    error: null,
    ...extra,
  };
}

export function when(at: number | null): string {
  return at === null ? "—" : new Date(at * 1000).toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

/**
 * What a console form shows when a rule (oidc/admin/) refused the change: its words and the
 * fields they name. Anything but an AdminError is rethrown (a bug, or an HTTP-level refusal).
 */
export function refusal_words(error: unknown): string {
  if (!(error instanceof AdminError)) throw error;
  const fields = error.errors.map((problem) => `${problem.field}: ${problem.message}`);
  if (error.error === "precondition_required") return "The form did not say which version of the item it edits. Reload the page and try again: nothing was saved.";
  if (error.error === "precondition_failed")
    return "This item was changed by someone else since you opened the page. Reload it, check the changes, and try again: nothing was saved.";
  return fields.length > 0 && !fields.some((text) => error.message.includes(text)) ? `${error.message} (${fields.join("; ")})` : error.message;
}

/** Invitations (oidc/accounts/invitations.ts) need mail, and the invitation page mounted (IDP_SIGNUP invite or open). */
export function invitations_available(idp: Provider): boolean {
  return idp.mail.enabled && idp.config.signup.mode !== "off";
}
