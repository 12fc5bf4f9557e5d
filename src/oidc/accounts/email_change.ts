/**
 * Changing the e-mail address from the account page. The signed-in user gives the new address
 * and their current password (the same re-authentication as a password change); a single-use
 * link goes to the NEW address (`email_change_confirm`) and a notice to the OLD one
 * (`email_change_notice`), so a session thief cannot move the account to their address without
 * the owner hearing of it. The address changes only when the link is followed and its page's
 * button pressed (a GET never changes anything: mail scanners open links), and it is then
 * verified: the link proved it. Until then the old address stays.
 *
 * The link is a link token (link_tokens.ts: 256 random bits, only the SHA-256 stored, single
 * use); a newer request voids the older link. Audited: `email_change_requested`, `email_change`.
 */
import { record_event } from "../audit.ts";
import type { Provider } from "../provider.ts";
import type { UserRow, UserTokenRow } from "../../store/types.ts";
import { address_key, parse_address } from "./emails.ts";
import { LINK_PATHS, find_link_token, issue_link_token, redeem_link_token, void_address_links } from "./link_tokens.ts";

export const EMAIL_CHANGE_PATH = LINK_PATHS.email_change;

/** The new address in its stored spelling, or why it is refused (naming the field). */
export function new_address_problem(user: UserRow, input: string): { problem: string } | { email: string } {
  const parsed = parse_address(input, "New e-mail address");
  if ("problem" in parsed) return parsed;
  if (user.email !== null && address_key(user.email) === address_key(parsed.email)) return { problem: "New e-mail address: that is already your address." };
  return { email: parsed.email };
}

/** Stores the link (voiding an older one), mails the new and the old address; audited. */
export async function request_email_change(idp: Provider, user: UserRow, email: string, ip: string): Promise<void> {
  // Valid as long as a verification link (email_verification.ttl): it proves an address the same way.
  const ttl = idp.config.email_verification.ttl;
  const { link } = await issue_link_token(idp, user, "email_change", ttl, email);
  await idp.mail.send({ to: email, template: "email_change_confirm", data: { name: user.name, link, new_email: email, expires_minutes: Math.round(ttl / 60) } });
  if (user.email !== null) await idp.mail.send({ to: user.email, template: "email_change_notice", data: { name: user.name, new_email: email } });
  await record_event(idp, { type: "email_change_requested", outcome: "success", user_id: user.id, ip });
}

/** A link that can still be used, with its account; null when it is used, expired or unknown. */
export async function open_email_change(idp: Provider, token: string): Promise<{ token: UserTokenRow; user: UserRow } | null> {
  const found = await find_link_token(idp, token, "email_change");
  return found === null || found.row.email === null ? null : { token: found.row, user: found.user };
}

export type ConfirmOutcome = { kind: "changed"; user: UserRow } | { kind: "invalid" } | { kind: "taken" };

/** Consumes the link (once) and sets the new address, verified. */
export async function confirm_email_change(idp: Provider, token: string, ip: string): Promise<ConfirmOutcome> {
  const redeemed = await redeem_link_token(idp, token, "email_change");
  if (redeemed === null || redeemed.row.email === null) return { kind: "invalid" };
  const { row, user } = redeemed;
  const email = row.email!;
  // Another account took the address since the link was sent (a sign-up, an administrator):
  // two accounts must not both hold one verified address.
  const others = (await idp.store.find_users_by_email(email)).filter((u) => u.id !== user.id && address_key(u.email ?? "") === address_key(email));
  if (others.length > 0) {
    await record_event(idp, { type: "email_change", outcome: "failure", user_id: user.id, ip, details: { reason: "email_in_use" } });
    return { kind: "taken" };
  }
  const changed = await idp.store.update_user(user.id, { email, email_verified: true });
  if (changed === null) return { kind: "invalid" };
  // Reset, verification and other change links sent before no longer fit the account: a reset
  // link in the old mailbox must not take over the account that moved away from it.
  await void_address_links(idp.store, user.id);
  await record_event(idp, { type: "email_change", outcome: "success", user_id: user.id, ip });
  return { kind: "changed", user: changed };
}
