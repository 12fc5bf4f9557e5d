/**
 * Forgot password and password reset (OWASP Forgot Password Cheat Sheet).
 *
 * - Asking: the person gives a username or an e-mail address. The answer is the same page,
 *   status and timing whether or not an account matches: the request only counts against the
 *   address's limit (a 429 says nothing about accounts) and hands the lookup and the mail to a
 *   task that runs after the answer (`request_password_reset`). Each account is mailed at most
 *   `password_reset.per_account` links per window; past that, requests send nothing, silently.
 * - The link (link_tokens.ts): 256 random bits, stored as SHA-256, single use, valid
 *   `password_reset.ttl` seconds (30 minutes); a newer link, any password change, a reset or a
 *   change of e-mail address voids it, and it works only while the account's address is the one
 *   it was mailed to (`reset_link_fits`).
 * - Resetting: the link's page asks for the new password (the policy, password_policy.ts) and,
 *   when the account has a second factor, for it (`check_reset_second_factor`: a code of the
 *   authenticator app, a recovery code, or a passkey): a link in a mailbox must not be enough to
 *   take over an account protected by two factors. The POST uses the link atomically; then the
 *   user is signed out everywhere (every session ends, every token is revoked), told by mail,
 *   and the reset is audited.
 * - A reset that proves an address never verified before hands the account to the address's
 *   owner (reclaim.ts): no second factor is asked for, and whatever the earlier holder added
 *   (authenticator app, recovery codes, passkeys, linked upstream accounts, pending links) goes.
 */
import { record_event } from "../audit.ts";
import { Throttled } from "../errors.ts";
import { count, COUNTERS } from "../limits/counters.ts";
import { clear_login_failures } from "../limits/login.ts";
import type { Provider } from "../provider.ts";
import { end_user_sessions } from "../signin/sessions.ts";
import type { Store, UnixSeconds, UserRow } from "../../store/types.ts";
import { hash_password } from "../../platform/passwords.ts";
import { address_key } from "./emails.ts";
import { issue_link_token, type LinkTarget } from "./link_tokens.ts";
import { reclaim_account, removed_sign_in_methods, reset_reclaims, type Reclaimed } from "./reclaim.ts";
import { parse_response, verify_assertion } from "../signin/passkeys/ceremony.ts";
import { check_second_factor, has_any, second_factors, type CodeInput, type SecondFactors } from "../signin/second_factor.ts";

export const FORGOT_PASSWORD_PATH = "/password/forgot";
/** Where the reset page's script gets the options of a passkey ceremony (http/endpoints/account/reset_password_passkey.ts). */
export const RESET_PASSKEY_OPTIONS_PATH = "/password/reset/passkey/options";

/** Accounts mailed for one address typed in (several accounts may share an address). */
const MAX_ACCOUNTS_PER_ADDRESS = 10;

/** The forgot-password page is offered only when mail can be delivered. */
export function forgot_password_url(idp: Provider, interaction_id: string | null = null): string | null {
  if (!idp.mail.enabled) return null;
  const query = interaction_id === null ? "" : `?${new URLSearchParams({ interaction: interaction_id }).toString()}`;
  return `${idp.config.issuer}${FORGOT_PASSWORD_PATH}${query}`;
}

/** One more request from `ip` to `what` (forgot or reset) in the window; 429 past `password_reset.per_ip`. */
export async function count_address(idp: Provider, what: "forgot" | "reset", ip: string): Promise<void> {
  const now = idp.now();
  const state = await count(idp, what === "forgot" ? COUNTERS.forgot_password_requests_per_ip : COUNTERS.password_reset_posts_per_ip, { ip }, now);
  if (state.over) throw new Throttled("Too many password reset requests from your network. Wait a while and try again.", state.reset_at - now);
}

/** One more reset attempt for this account in the window (a second-factor code is short); 429 past the limit. */
export async function count_reset_attempt(idp: Provider, user: UserRow): Promise<void> {
  const now = idp.now();
  const state = await count(idp, COUNTERS.password_reset_attempts_per_user, { user_id: user.id }, now);
  if (state.over) throw new Throttled("Too many attempts to reset this password. Wait a while and try again.", state.reset_at - now);
}

/** The accounts a "username or e-mail address" names: the username's, else every account with that address. */
async function accounts_named(idp: Provider, identifier: string): Promise<UserRow[]> {
  const by_name = await idp.store.get_user_by_username(identifier);
  if (by_name !== null) return [by_name];
  if (!identifier.includes("@")) return [];
  const key = address_key(identifier);
  const owners = await idp.store.find_users_by_email(identifier);
  // find_users_by_email ignores ASCII case only; address_key is the one comparison of addresses.
  return owners.filter((user) => user.email !== null && address_key(user.email) === key).slice(0, MAX_ACCOUNTS_PER_ADDRESS);
}

/** Why an account gets no link (audited, never shown); null when it gets one. */
function not_mailed(user: UserRow): string | null {
  if (user.email === null || user.email === "") return "no_address";
  // Invited accounts have no password to reset (their invitation link sets one); disabled ones may not sign in.
  if (user.status === "invited" || user.status === "disabled") return `status_${user.status}`;
  return null;
}

/** Mails a reset link to each account `identifier` names; audits each outcome. Never throws to the person who asked. */
async function send_reset_links(idp: Provider, identifier: string, ip: string, params: Record<string, string>): Promise<void> {
  const accounts = identifier === "" ? [] : await accounts_named(idp, identifier);
  if (accounts.length === 0) {
    await record_event(idp, { type: "password_reset_requested", outcome: "failure", ip, details: { reason: "unknown_account" } });
    return;
  }
  for (const user of accounts) {
    const reason = not_mailed(user);
    if (reason !== null) {
      await record_event(idp, { type: "password_reset_requested", outcome: "failure", user_id: user.id, ip, details: { reason } });
      continue;
    }
    const now = idp.now();
    const sent = await count(idp, COUNTERS.password_reset_mails_per_user, { user_id: user.id }, now);
    if (sent.over) {
      await record_event(idp, { type: "password_reset_requested", outcome: "failure", user_id: user.id, ip, details: { reason: "throttled" } });
      continue;
    }
    await mail_reset_link(idp, user, params);
    await record_event(idp, { type: "password_reset_requested", outcome: "success", user_id: user.id, ip });
  }
}

/** Why an account cannot be sent a reset link, as a sentence; null when it can (`idp users send-reset`). */
export function reset_refusal(user: UserRow): string | null {
  switch (not_mailed(user)) {
    case null:
      return null;
    case "no_address":
      return `user "${user.username}" has no e-mail address to send a reset link to (set one, or use idp users set-password)`;
    case "status_invited":
      return `user "${user.username}" is invited and has no password yet: invite them again (idp users invite) instead`;
    default:
      return `user "${user.username}" is disabled`;
  }
}

/** Issues a reset link for the user (voiding older ones) and queues the mail to their address. */
export async function mail_reset_link(idp: Provider, user: UserRow, params: Record<string, string> = {}): Promise<{ expires_at: UnixSeconds }> {
  const ttl = idp.config.password_reset.ttl;
  const { link, expires_at } = await issue_link_token(idp, user, "password_reset", ttl, user.email, params);
  await idp.mail.send({ to: user.email!, template: "password_reset", data: { name: user.name, link, expires_minutes: Math.round(ttl / 60) } });
  return { expires_at };
}

/** Reset mails being prepared (tests and a graceful stop can wait for them). */
const in_flight = new Set<Promise<void>>();

/**
 * Starts the lookup and the mail for a forgot-password request and returns at once, so the
 * answer does not depend on whether an account matched (no enumeration by timing). A failure
 * is logged, never shown.
 */
export function request_password_reset(idp: Provider, identifier: string, ip: string, params: Record<string, string> = {}): void {
  const task = send_reset_links(idp, identifier.trim().normalize("NFC"), ip, params)
    .catch((error: unknown) => idp.log({ level: "error", msg: "password reset request failed", error: error instanceof Error ? error.message : String(error) }))
    .finally(() => in_flight.delete(task));
  in_flight.add(task);
}

/** Resolves once every forgot-password request started so far is done. */
export async function settle_password_reset_requests(): Promise<void> {
  while (in_flight.size > 0) await Promise.all([...in_flight]);
}

/**
 * The second factors a reset of this account's password must prove one of; null when none. With
 * one, a link from the mailbox alone must not take over the account: the authenticator app (a
 * code or a recovery code) and passkeys, counted as at sign-in (signin/second_factor.ts: while
 * passkeys are on). An account whose address was never verified is asked for none: the reset is
 * what proves the address, and the factors go with the account's earlier holder (reclaim.ts);
 * asking for them would let whoever made the account with someone else's address keep it.
 */
export async function reset_needs_second_factor(idp: Provider, user: UserRow): Promise<SecondFactors | null> {
  if (reset_reclaims(user)) return null;
  const methods = await second_factors(idp, user);
  return has_any(methods) ? methods : null;
}

/**
 * What a reset's passkey challenge is bound to: its link (the stored hash of its token), so a
 * challenge made for one link does not serve another (passkeys/ceremony.ts `take_challenge`).
 */
export function reset_passkey_binding(target: LinkTarget): string {
  return `reset:${target.row.token_hash}`;
}

/** What the reset form sends for the second factor: a code, a recovery code, or a passkey ceremony's response (JSON). */
export type ResetFactorInput = CodeInput & { response?: string | undefined };

/**
 * Checks the second factor of a reset: a passkey (WebAuthn §7.2, user presence as for a second
 * factor), else a TOTP code or a recovery code (throttled, check_second_factor); null when it is
 * right or not needed, else the message to show.
 */
export async function check_reset_second_factor(idp: Provider, target: LinkTarget, input: ResetFactorInput, ip: string): Promise<string | null> {
  const user = target.user;
  const needed = await reset_needs_second_factor(idp, user);
  if (needed === null) return null;
  const response = (input.response ?? "").trim();
  if (response !== "" && needed.passkeys > 0) {
    const result = await verify_assertion(idp, "password_reset", reset_passkey_binding(target), parse_response(response), user, { ip, client_id: null });
    if (!result.ok) return result.message;
    await record_event(idp, { type: "two_factor", outcome: "success", user_id: user.id, ip, details: { method: "passkey", for: "password_reset" } });
    return null;
  }
  if (!needed.totp) return "Confirm the change with your passkey.";
  if ((input.code ?? "").trim() === "" && (input.recovery_code ?? "").trim() === "") {
    return needed.passkeys > 0
      ? "Enter the code from your authenticator app or a recovery code, or use your passkey."
      : "Enter the code from your authenticator app, or a recovery code.";
  }
  return check_second_factor(idp, user, input, ip, null);
}

/**
 * A reset link works only while the account's address is the one it was mailed to: a link left in
 * a mailbox the owner moved away from must not take the account over. Changes of address void
 * the links too (link_tokens.ts `void_address_links`); this holds whatever changed the address.
 */
export function reset_link_fits(target: LinkTarget): boolean {
  const { row, user } = target;
  return row.email !== null && user.email !== null && address_key(row.email) === address_key(user.email);
}

/** Voids the user's password reset links: after any change of password. */
export function void_reset_links(store: Store, user_id: string): Promise<number> {
  return store.delete_user_tokens(user_id, "password_reset");
}

/**
 * Tells the user their password changed (a notice without a link to act on), when mail is on and
 * they have an address; `reclaimed`: the reset also removed the ways in someone added before (reclaim.ts).
 */
export async function send_password_changed(idp: Provider, user: UserRow, reclaimed = false): Promise<void> {
  if (!idp.mail.enabled || user.email === null || user.email === "") return;
  await idp.mail.send({ to: user.email, template: "password_changed", data: { name: user.name, ...(reclaimed ? { reclaimed } : {}) } });
}

/** What a completed reset ended, and what it removed when it handed the account over (reclaim.ts). */
export type ResetOutcome = { sessions_ended: number; tokens_revoked: number; reclaimed: Reclaimed | null };

/**
 * Sets the new password of the user whose link `email` was sent to (the link is already used):
 * the address is verified by the link when it is still the account's; then sign-out everywhere,
 * the other reset links voided, the earlier holder's ways in removed when the address was
 * never verified before (reclaim.ts), the notice mailed, the event audited.
 */
export async function complete_password_reset(idp: Provider, user: UserRow, link_email: string | null, password: string, ip: string): Promise<ResetOutcome> {
  const now = idp.now();
  const password_hash = await hash_password(password, idp.config.argon2);
  // The link reached the address: it proves the address as a verification link would.
  const proven = link_email !== null && user.email !== null && address_key(link_email) === address_key(user.email);
  await idp.store.update_user(user.id, {
    password_hash,
    ...(proven ? { email_verified: true } : {}),
    ...(proven && user.status === "unverified" ? { status: "active" as const } : {}),
  });
  await void_reset_links(idp.store, user.id);
  // Whoever used the old password loses the account: every session ends, every token is revoked.
  const ended = await end_user_sessions(idp.store, user.id, now);
  // After the sessions: none is left to add a passkey while the earlier holder's ones go.
  const reclaimed = proven && reset_reclaims(user) ? await reclaim_account(idp, user, ip, now) : null;
  await clear_login_failures(idp, ip, user.username);
  await record_event(idp, { type: "password_reset", outcome: "success", user_id: user.id, ip, at: now, details: { ...ended, ...(reclaimed === null ? {} : { reclaimed: true }) } });
  await send_password_changed(idp, user, removed_sign_in_methods(reclaimed));
  return { ...ended, reclaimed };
}
