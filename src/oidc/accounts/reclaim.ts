/**
 * An account changes hands when a password reset proves its address for the first time.
 *
 * With open sign-up and no verification, anyone can make an account with someone else's address
 * (unverified) and add ways in that do not need its password: a passkey, an authenticator app,
 * a linked upstream account. When the address's owner later uses "Forgot password?", the link
 * reaching their mailbox proves the address (password_reset.ts), and the account becomes theirs.
 * Replacing the password alone would leave the earlier holder's ways in: the account was
 * "pre-hijacked" (Sudhodanan and Paverd, "Pre-hijacked accounts: An Empirical Study of Security
 * Failures in User Account Creation on the Web", USENIX Security 2022, the "unexpired session"
 * and "non-verifying identity provider" attacks; OWASP Forgot Password Cheat Sheet: a reset must
 * not leave the account to whoever else held it).
 *
 * So such a reset, besides the new password and the sessions and tokens it ends anyway, removes
 * what the earlier holder may have added: the TOTP secret and its recovery codes, every passkey,
 * every linked upstream account, and every link still waiting in a mailbox (an e-mail change
 * asked for by the earlier holder would otherwise hand the address, and then the account, back).
 * It is audited (`account_reclaimed`), and the result page and the "password changed" mail say
 * what went, so the owner adds their own again from the account page.
 */
import { record_event } from "../audit.ts";
import type { Provider } from "../provider.ts";
import type { UnixSeconds, UserRow } from "../../store/types.ts";
import { void_address_links } from "./link_tokens.ts";

/** What a reclaim removed. */
export type Reclaimed = {
  totp_removed: boolean;
  recovery_codes_removed: number;
  passkeys_removed: number;
  identities_removed: number;
  links_voided: number;
};

/**
 * Does a reset that proves the address hand the account over? Yes while the account's address
 * was never verified: until now, nothing showed that whoever made the account owns the mailbox.
 */
export function reset_reclaims(user: UserRow): boolean {
  return !user.email_verified;
}

/** Whether the reclaim took away a way to sign in (what the page and the mail mention). */
export function removed_sign_in_methods(reclaimed: Reclaimed | null): boolean {
  return reclaimed !== null && (reclaimed.totp_removed || reclaimed.passkeys_removed > 0 || reclaimed.identities_removed > 0);
}

/**
 * Removes the earlier holder's ways in (see the file comment) and audits it. Called once the new
 * password is set and the sessions have ended: no session is left to add a passkey meanwhile.
 */
export async function reclaim_account(idp: Provider, user: UserRow, ip: string, now: UnixSeconds): Promise<Reclaimed> {
  const store = idp.store;
  const totp_removed = user.totp_secret !== null || user.totp_enabled_at !== null;
  if (totp_removed) await store.update_user(user.id, { totp_secret: null, totp_enabled_at: null });
  const recovery_codes_removed = await store.count_recovery_codes(user.id);
  await store.set_recovery_codes(user.id, [], now);
  let passkeys_removed = 0;
  for (const passkey of await store.list_passkeys_for_user(user.id)) if (await store.delete_passkey(user.id, passkey.id)) passkeys_removed++;
  let identities_removed = 0;
  for (const identity of await store.list_identities_for_user(user.id)) if (await store.unlink_identity(user.id, identity.upstream, identity.subject)) identities_removed++;
  const links_voided = await void_address_links(store, user.id);
  const reclaimed: Reclaimed = { totp_removed, recovery_codes_removed, passkeys_removed, identities_removed, links_voided };
  await record_event(idp, { type: "account_reclaimed", outcome: "success", user_id: user.id, ip, at: now, details: { reason: "address_proven_by_reset", ...reclaimed } });
  return reclaimed;
}
