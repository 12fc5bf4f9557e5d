/**
 * E-mail verification: a single-use link (link_tokens.ts, purpose `email_verification`) mailed
 * to an address proves the person reads it. Opening the link shows a page with a confirm button;
 * only its POST uses the link, so a mail scanner that fetches every link (GET) confirms nothing.
 *
 * Confirming sets `email_verified` (the ID Token's and userinfo's `email_verified`, OIDC Core
 * §5.1, follow the user row) and turns an `unverified` account (sign-up) `active` — only while
 * the user's address is still the one the link was sent to: after a change of address an old
 * link proves nothing about the new one.
 *
 * Sending is limited per account (`email_verification.per_account` mails per
 * `password_reset.window_seconds`), so the resend buttons cannot flood a mailbox.
 */
import { record_event } from "../audit.ts";
import { interaction_cookie_name, read_cookie, type CookieReader } from "../browser/cookies.ts";
import { constant_time_equal, random_token, sha256 } from "../crypto/secrets.ts";
import { PageError, Throttled } from "../errors.ts";
import { count, COUNTERS } from "../limits/counters.ts";
import type { Provider } from "../provider.ts";
import type { JsonObject, UserRow } from "../../store/types.ts";
import { address_key } from "./emails.ts";
import { issue_link_token, redeem_link_token, invalid_link } from "./link_tokens.ts";

/** True when the user has an address that is not verified yet (the account page offers a link). */
export function needs_verification(user: UserRow): boolean {
  return user.email !== null && user.email !== "" && !user.email_verified;
}

/**
 * Mails a verification link for `email` (default the user's address) to that address. `params`
 * travel in the link (an interaction to return to after sign-up). Raises Throttled (429) past
 * the per-account limit, and a PageError when there is no address or mail is off.
 */
export async function send_verification(idp: Provider, user: UserRow, email: string | null = user.email, params: Record<string, string> = {}): Promise<void> {
  if (email === null || email === "") throw new PageError("No e-mail address", "This account has no e-mail address to confirm.", "invalid_request");
  if (!idp.mail.enabled) throw new PageError("E-mail is not available", "This service cannot send e-mail at the moment. Ask the administrator.", "temporarily_unavailable");
  const now = idp.now();
  const sent = await count(idp, COUNTERS.verification_mails_per_user, { user_id: user.id }, now);
  if (sent.over) {
    throw new Throttled("Too many confirmation e-mails were sent for this account. Wait a while, then ask again.", sent.reset_at - now);
  }
  const ttl = idp.config.email_verification.ttl;
  const { link } = await issue_link_token(idp, user, "email_verification", ttl, email, params);
  await idp.mail.send({ to: email, template: "email_verification", data: { name: user.name, link, expires_minutes: Math.round(ttl / 60) } });
  await record_event(idp, { type: "email_verification_sent", outcome: "success", user_id: user.id, at: now });
}

/**
 * Uses a verification link: marks the address verified and an unverified account active. A
 * used, expired, voided or forged link, or one for an address the account no longer has, is
 * refused with a page that says so and changes nothing.
 */
export async function confirm_email(idp: Provider, token: string | undefined, ip: string): Promise<UserRow> {
  const redeemed = await redeem_link_token(idp, token, "email_verification");
  if (redeemed === null) throw invalid_link("email_verification");
  const { row, user } = redeemed;
  if (user.email === null || row.email === null || address_key(user.email) !== address_key(row.email)) {
    await record_event(idp, { type: "email_verified", outcome: "failure", user_id: user.id, ip, details: { reason: "address_changed" } });
    throw new PageError(
      "This link is for another address",
      "The e-mail address of the account changed after this link was sent, so it cannot confirm the new one. Sign in and ask for a new confirmation link.",
      "invalid_request",
    );
  }
  const updated = await idp.store.update_user(user.id, { email_verified: true, ...(user.status === "unverified" ? { status: "active" as const } : {}) });
  await record_event(idp, { type: "email_verified", outcome: "success", user_id: user.id, ip, details: { activated: user.status === "unverified" } });
  return updated ?? user;
}

/**
 * The sign-in page of an unverified account offers to send the link again. The person has just
 * given the right password, so the page carries a ticket for this user: an interaction row bound
 * to this browser (`binding`, the `idp_interaction` cookie value, as for the account sign-in's
 * second step), valid for `tokens.interaction_ttl`.
 */
export async function begin_resend_ticket(idp: Provider, user: UserRow, binding: string): Promise<string> {
  const ticket = random_token(32);
  const now = idp.now();
  await idp.store.create_interaction({
    id: ticket,
    params: { resend_verification: user.id, binding_hash: sha256(binding) } as unknown as JsonObject,
    created_at: now,
    expires_at: now + idp.config.tokens.interaction_ttl,
  });
  return ticket;
}

/** The user of a resend ticket made in this browser; a PageError for an expired or foreign one. */
export async function resend_ticket_user(idp: Provider, ticket: string | undefined, cookies: CookieReader): Promise<UserRow> {
  const expired = new PageError("This page has expired", "Sign in again to ask for a new confirmation link.", "invalid_request");
  if (ticket === undefined || !/^[A-Za-z0-9_-]{43}$/.test(ticket)) throw expired;
  const row = await idp.store.get_interaction(ticket);
  const params = row?.params as { resend_verification?: string; binding_hash?: string } | undefined;
  const binding = read_cookie(cookies, interaction_cookie_name(idp));
  if (
    row === null ||
    row.expires_at <= idp.now() ||
    params?.resend_verification === undefined ||
    binding === null ||
    !constant_time_equal(sha256(binding), params.binding_hash ?? "")
  )
    throw expired;
  const user = await idp.store.get_user_by_id(params.resend_verification);
  if (user === null) throw expired;
  return user;
}
