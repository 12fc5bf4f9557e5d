/**
 * What the account page shows: the profile, two-step verification, the password form and the
 * applications the user allowed. Built in one place, because several endpoints render the page
 * (the page itself, and the forms that answer with it to show an error next to the field).
 */
import { display_name } from "../../oidc/clients/metadata.ts";
import { PATHS } from "../../oidc/discovery/paths.ts";
import { layout_values } from "./layout.ts";
import { RESEND_VERIFICATION_PATH } from "./account_status.ts";
import { password_policy_hint } from "../../oidc/accounts/password_policy.ts";
import { sessions_of } from "./sessions.ts";
import { passkeys_of } from "./passkeys.ts";
import { identities_of } from "../../oidc/federation/upstreams.ts";
import { ADMIN_CONSOLE } from "../../oidc/admin/console.ts";
import { console_roles } from "../../oidc/admin/roles.ts";
import type { Provider } from "../../oidc/provider.ts";
import { SCOPE_DESCRIPTIONS, is_known_scope } from "../../oidc/claims/scopes.ts";
import { ACCOUNT_PATHS, account_url, type AccountSession } from "../../oidc/browser/account_guard.ts";
import { editable_attributes, MAX_NAME, type ProfileProblem } from "../../oidc/accounts/profile.ts";
import { attribute_text, read_user_attributes } from "../../oidc/attributes/values.ts";

/**
 * The profile form: the names and the user-editable attributes, each with its value (or what was
 * typed, after a refusal) and its problem. An attribute's field is `attribute.<name>`.
 */
async function profile_form(idp: Provider, session: AccountSession, messages: AccountMessages) {
  const user = session.user;
  const typed = messages.profile_typed ?? null;
  const problems = messages.profile_problems ?? [];
  const problem = (field: string) => problems.find((p) => p.field === field)?.message ?? null;
  const names = (["name", "given_name", "family_name"] as const).map((field) => ({
    field,
    label_key: `account.profile_${field}`,
    value: typed?.[field] ?? user[field] ?? "",
    error: problem(field),
  }));
  const values = await read_user_attributes(idp.store, user.id);
  const attributes = (await editable_attributes(idp)).map((definition) => ({
    name: definition.name,
    field: `attribute.${definition.name}`,
    type: definition.type,
    hint_key: `account.attribute_hint_${definition.type === "string[]" ? "list" : definition.type}`,
    required: definition.required,
    value: typed?.[`attribute.${definition.name}`] ?? attribute_text(values[definition.name]),
    error: problem(definition.name),
  }));
  return { action: `${idp.config.issuer}${ACCOUNT_PATHS.profile}`, names, attributes, max_name: MAX_NAME, failed: problems.length > 0 };
}

/** Messages shown on the page; each error is shown next to its form. */
export type AccountMessages = {
  notice?: string | null;
  password_error?: string | null;
  totp_error?: string | null;
  /** A refused passkey action (add, rename, remove). */
  passkey_error?: string | null;
  /** A refused e-mail change, and the new address typed (kept in the field). */
  email_error?: string | null;
  new_email?: string | null;
  /** A refused link of an upstream account (re-authentication failed). */
  identity_error?: string | null;
  /** A refused profile form: each problem by field, and what was typed (kept in the fields). */
  profile_problems?: readonly ProfileProblem[] | null;
  profile_typed?: Readonly<Record<string, string | undefined>> | null;
  /** A refused account deletion. */
  delete_error?: string | null;
};

/** The fixed confirmations an action redirects to (`/account?done=...`); nothing from the URL is echoed. */
export const NOTICES = {
  password: "Your password was changed. You were signed out everywhere else.",
  totp_enabled: "Two-step verification is on. You will be asked for a code when you sign in.",
  totp_removed: "Two-step verification is off. Signing in now only needs your password.",
  revoked: "Access removed. The application will have to ask for your permission again.",
  verification_sent: "We sent a confirmation link to your e-mail address. Open it to confirm the address.",
  passkey_added: "Passkey added. You can now sign in with it, without your password.",
  passkey_renamed: "Passkey renamed.",
  passkey_removed: "Passkey removed. It can no longer sign in to your account.",
  session_ended: "That session was signed out.",
  sessions_ended: "You were signed out everywhere else.",
  identity_unlinked: "That account was unlinked. It can no longer sign in to your account.",
  welcome: "Welcome! Your account is ready and you are signed in.",
  profile_saved: "Your profile was saved.",
  email_sent: "We sent a link to your new address. Your e-mail changes when you open it and confirm; until then the old address stays.",
} as const;

export type Notice = keyof typeof NOTICES;

export function is_notice(value: string | undefined): value is Notice {
  return value !== undefined && Object.hasOwn(NOTICES, value);
}

/** A date in plain words, the same for everyone ("22 November 2025"). */
export function plain_date(unix: number): string {
  return new Date(unix * 1000).toLocaleDateString("en-GB", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
}

export function describe_scope(scope: string): string {
  return is_known_scope(scope) ? SCOPE_DESCRIPTIONS[scope] : `Use the permission “${scope}”`;
}

type GrantView = { client_id: string; name: string; scopes: string[]; since: string; since_at: number };

async function grants_of(idp: Provider, user_id: string): Promise<GrantView[]> {
  const grants = await idp.store.list_grants_for_user(user_id);
  const views = await Promise.all(
    grants.map(async (grant): Promise<GrantView> => {
      const client = await idp.store.get_client(grant.client_id);
      return {
        client_id: grant.client_id,
        name: client === null ? grant.client_id : display_name(client),
        scopes: grant.scopes.map(describe_scope),
        since: plain_date(grant.created_at),
        since_at: grant.created_at,
      };
    }),
  );
  return views.sort((a, b) => a.name.localeCompare(b.name));
}

/** The values of views/account.eta. */
export async function account_values(idp: Provider, session: AccountSession, messages: AccountMessages = {}): Promise<Record<string, unknown>> {
  const user = session.user;
  const enabled = user.totp_enabled_at !== null;
  const issuer = idp.config.issuer;
  return {
    ...layout_values(idp, "Your account"),
    wide: true,
    csrf: session.csrf,
    user: {
      username: user.username,
      name: user.name,
      email: user.email,
      email_verified: user.email_verified,
    },
    totp: {
      enabled,
      since: enabled ? plain_date(user.totp_enabled_at!) : null,
      since_at: user.totp_enabled_at,
      recovery_left: enabled ? await idp.store.count_recovery_codes(user.id) : 0,
    },
    grants: await grants_of(idp, user.id),
    // An address not proven yet: the page offers to mail a confirmation link (verification.ts).
    verify_email: user.email !== null && user.email !== "" && !user.email_verified && idp.mail.enabled ? `${issuer}${RESEND_VERIFICATION_PATH}` : null,
    password_hint: password_policy_hint(idp.config.passwords),
    password_min_length: idp.config.passwords.min_length,
    password_max_length: idp.config.passwords.max_length,
    sessions: await sessions_of(idp, session),
    // Sign-in with other identity providers: linked accounts, and the upstreams to link.
    identities: await identities_of(idp, user.id),
    identities_action: `${issuer}/account/identities`,
    // Linking needs re-authentication (account/identity_link.ts): the password, when there is one.
    identity_link: { action: `${issuer}/account/identities/link`, password: user.password_hash !== "", error: messages.identity_error ?? null },
    // Passkeys: null when they are off (IDP_PASSKEYS=off); the page then runs no script.
    ...(await passkeys_of(idp, session, messages.passkey_error ?? null)),
    actions: {
      password: `${issuer}${ACCOUNT_PATHS.password}`,
      totp: account_url(idp, "totp"),
      grants: `${issuer}${ACCOUNT_PATHS.grants}`,
      sessions: `${issuer}${ACCOUNT_PATHS.sessions}`,
      // Changing the address needs a confirmation mail: not offered when mail is off.
      email: idp.mail.enabled ? `${issuer}${ACCOUNT_PATHS.email}` : null,
    },
    // ...and the page says why instead.
    email_change_unavailable: !idp.mail.enabled,
    // Members of the console's group find it from here; the console itself checks the second factor.
    admin_console_url: idp.config.admin_console.enabled && user.status === "active" && (await console_roles(idp, user.id)).length > 0 ? `${issuer}${ADMIN_CONSOLE}` : null,
    // RP-Initiated Logout's page asks for confirmation, then signs this browser out.
    logout_url: `${issuer}${PATHS.logout}`,
    profile: await profile_form(idp, session, messages),
    // "Delete my account" (IDP_ACCOUNT_SELF_DELETE): re-authentication with the password, or the username without one.
    self_delete: idp.config.account_self_delete ? { action: `${issuer}${ACCOUNT_PATHS.delete}`, password: user.password_hash !== "", error: messages.delete_error ?? null } : null,
    notice: messages.notice ?? null,
    password_error: messages.password_error ?? null,
    totp_error: messages.totp_error ?? null,
    email_error: messages.email_error ?? null,
    new_email: messages.new_email ?? "",
  };
}
