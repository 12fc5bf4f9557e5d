/**
 * What the account page shows: the profile, two-step verification, the password form and the
 * applications the user allowed. Built in one place, because several endpoints render the page
 * (the page itself, and the forms that answer with it to show an error next to the field).
 */
import { display_name } from "../../oidc/clients.ts";
import { PATHS } from "../../oidc/metadata.ts";
import { layout_values } from "./layout.ts";
import type { Provider } from "../../oidc/provider.ts";
import { SCOPE_DESCRIPTIONS, is_known_scope } from "../../oidc/scopes.ts";
import { ACCOUNT_PATHS, account_url, type AccountSession } from "../../oidc/account/session.ts";

/** Messages shown on the page; each error is shown next to its form. */
export type AccountMessages = {
  notice?: string | null;
  password_error?: string | null;
  totp_error?: string | null;
};

/** The fixed confirmations an action redirects to (`/account?done=...`); nothing from the URL is echoed. */
export const NOTICES = {
  password: "Your password was changed. You were signed out everywhere else.",
  totp_enabled: "Two-step verification is on. You will be asked for a code when you sign in.",
  totp_removed: "Two-step verification is off. Signing in now only needs your password.",
  revoked: "Access removed. The application will have to ask for your permission again.",
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

type GrantView = { client_id: string; name: string; scopes: string[]; since: string };

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
      recovery_left: enabled ? await idp.store.count_recovery_codes(user.id) : 0,
    },
    grants: await grants_of(idp, user.id),
    actions: {
      password: `${issuer}${ACCOUNT_PATHS.password}`,
      totp: account_url(idp, "totp"),
      grants: `${issuer}${ACCOUNT_PATHS.grants}`,
    },
    // RP-Initiated Logout's page asks for confirmation, then signs this browser out.
    logout_url: `${issuer}${PATHS.logout}`,
    notice: messages.notice ?? null,
    password_error: messages.password_error ?? null,
    totp_error: messages.totp_error ?? null,
  };
}
