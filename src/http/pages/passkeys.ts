/**
 * The passkeys section of the account page (views/account.eta): the user's passkeys with when
 * each was added and last used, the forms to add, rename and remove them, and the scripts that
 * run the WebAuthn ceremony (static/passkeys.js).
 */
import { ACCOUNT_PATHS, type AccountSession } from "../../oidc/browser/account_guard.ts";
import { MAX_PASSKEY_NAME } from "../../oidc/signin/passkeys/ceremony.ts";
import type { Provider } from "../../oidc/provider.ts";
import { passkeys_usable } from "../../oidc/signin/passkeys/rp_id.ts";
import { passkey_scripts } from "./layout.ts";
import { set_page_headers } from "../middleware/security_headers.ts";

/** Paths of the passkey forms, below the issuer. */
export const PASSKEY_PATHS = {
  manage: `${ACCOUNT_PATHS.home}/passkeys`,
  options: `${ACCOUNT_PATHS.home}/passkeys/options`,
} as const;

/** A date and time in plain words, the same for everyone ("22 November 2025, 14:05 UTC"). */
export function plain_time(unix: number): string {
  const date = new Date(unix * 1000);
  const day = date.toLocaleDateString("en-GB", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
  return `${day}, ${date.toISOString().slice(11, 16)} UTC`;
}

export type PasskeyView = { id: string; name: string; created: string; last_used: string | null; created_at: number; last_used_at: number | null; synced: boolean };

/**
 * The section's values. The scripts are added by the endpoints that also allow them in the page's
 * CSP (account_page_scripts); elsewhere the section shows without the "Add a passkey" form. Where
 * passkeys cannot work (rp_id.ts) nothing is offered: the section only lists the passkeys a user
 * has, to rename or remove them, and is absent when there are none.
 */
export async function passkeys_of(idp: Provider, session: AccountSession, error: string | null): Promise<{ passkeys: null | Record<string, unknown> }> {
  if (!idp.config.passkeys) return { passkeys: null };
  const user = session.user;
  const rows = await idp.store.list_passkeys_for_user(user.id);
  const can_add = passkeys_usable(idp.config);
  if (!can_add && rows.length === 0) return { passkeys: null };
  const issuer = idp.config.issuer;
  const list: PasskeyView[] = rows.map((row) => ({
    id: row.id,
    name: row.name,
    created: plain_time(row.created_at),
    last_used: row.last_used_at === null ? null : plain_time(row.last_used_at),
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    synced: row.backup_eligible,
  }));
  return {
    passkeys: {
      list,
      action: `${issuer}${PASSKEY_PATHS.manage}`,
      options: `${issuer}${PASSKEY_PATHS.options}`,
      // Re-authentication before adding one: the password, for users who have one.
      needs_password: user.password_hash !== "",
      // The last way to sign in is never removed (a user without a password keeps one passkey).
      keep_last: user.password_hash === "",
      max_name: MAX_PASSKEY_NAME,
      can_add,
      error,
    },
  };
}

/** The account page's scripts and CSP when passkeys are on (account/home.ts, account/passkeys.ts). */
export function account_page_scripts(idp: Provider, headers: Headers): { scripts?: string[] } {
  const usable = passkeys_usable(idp.config);
  set_page_headers(headers, null, usable);
  return usable ? { scripts: passkey_scripts(idp) } : {};
}
