/**
 * Invitations (`idp users invite EMAIL`): an account with status `invited` and no password
 * (password_hash ""), and a single-use link mailed to the address. The link's page lets the
 * person choose a username and a password; submitting consumes the link atomically (the
 * store's consume_user_token), sets the password, marks the address verified (following the
 * link proved it) and the account active.
 *
 * The link is a link token (link_tokens.ts: 256 random bits, only the SHA-256 stored, single
 * use). It is valid IDP_INVITATION_TTL seconds; inviting the same address again voids the older
 * link (a new token replaces it).
 */
import { record_event } from "../audit.ts";
import { random_token } from "../crypto/secrets.ts";
import type { Provider } from "../provider.ts";
import { hash_password } from "../../platform/passwords.ts";
import { StoreConflictError, type UserRow, type UserTokenRow } from "../../store/types.ts";
import { address_key, parse_address } from "./emails.ts";
import { chosen_password_problem } from "./chosen_password.ts";
import { LINK_PATHS, find_link_token, issue_link_token, redeem_link_token } from "./link_tokens.ts";
import { USERNAME_TAKEN, username_problem } from "./signup.ts";

export const INVITATION_PATH = LINK_PATHS.invitation;

/** Why an invitation cannot be made (the CLI prints it); `field` names the argument. */
export class InvitationRefused extends Error {
  constructor(
    readonly field: "email" | "username" | "name" | "mail",
    message: string,
  ) {
    super(message);
    this.name = "InvitationRefused";
  }
}

export type Invitation = { user: UserRow; resent: boolean; expires_at: number };

/** A username to prefill from the address's local part: the characters usernames allow, made unique. */
async function free_username(idp: Provider, email: string): Promise<string> {
  const local = email.slice(0, email.lastIndexOf("@"));
  const base =
    (
      local
        .normalize("NFKC")
        .replace(/[^\p{L}\p{N}._@+-]/gu, "")
        .slice(0, 56) || "user"
    ).replace(/^[.]+/, "") || "user";
  for (let n = 1; n < 1000; n++) {
    const candidate = n === 1 ? base : `${base}${n}`;
    if ((await idp.store.get_user_by_username(candidate)) === null) return candidate;
  }
  return `${base}-${random_token(16).slice(0, 6)}`;
}

/**
 * Invites `email`: creates the invited account (or finds the one an earlier invitation made, and
 * re-sends), stores a new link token (voiding the older one) and queues the `invitation` mail.
 */
export async function invite(
  idp: Provider,
  input: { email: string; name?: string | null; username?: string | null },
  source: { ip?: string | null; via?: "cli" } = {},
): Promise<Invitation> {
  if (!idp.mail.enabled) throw new InvitationRefused("mail", "mail is off: an invitation is sent by e-mail (set IDP_SMTP_URL)");
  const parsed = parse_address(input.email, "email");
  if ("problem" in parsed) throw new InvitationRefused("email", parsed.problem);
  const name = input.name?.trim() ?? null;
  if (name !== null && (name === "" || [...name].length > 256)) throw new InvitationRefused("name", "name: must be 1 to 256 characters");
  let username = input.username?.trim().normalize("NFC") ?? null;
  if (username !== null) {
    const problem = username_problem(username);
    if (problem !== null) throw new InvitationRefused("username", problem.replace(/^Username: /, "username: "));
  }

  const owners = (await idp.store.find_users_by_email(parsed.email)).filter((u) => address_key(u.email ?? "") === address_key(parsed.email));
  const taken = owners.find((u) => u.status !== "invited");
  if (taken !== undefined)
    throw new InvitationRefused("email", `email: ${parsed.email} is already the address of user "${taken.username}" (status ${taken.status}): no invitation needed`);

  let user = owners[0] ?? null;
  const resent = user !== null;
  if (user === null) {
    username ??= await free_username(idp, parsed.email);
    try {
      user = await idp.store.create_user({ username, password_hash: "", name, email: parsed.email, email_verified: false, status: "invited" });
    } catch (error) {
      if (error instanceof StoreConflictError) throw new InvitationRefused("username", `username: "${username}" is already taken`);
      throw error;
    }
  } else {
    const patch: { name?: string; username?: string } = {};
    if (name !== null) patch.name = name;
    if (username !== null && username !== user.username) {
      if ((await idp.store.get_user_by_username(username)) !== null) throw new InvitationRefused("username", `username: "${username}" is already taken`);
      patch.username = username;
    }
    if (Object.keys(patch).length > 0) user = (await idp.store.update_user(user.id, patch)) ?? user;
  }

  const ttl = idp.config.signup.invitation_ttl;
  // A new invitation voids the link of the previous one (issue_link_token replaces).
  const { link, expires_at } = await issue_link_token(idp, user, "invitation", ttl, parsed.email);
  await idp.mail.send({ to: parsed.email, template: "invitation", data: { name: user.name, link, expires_hours: Math.max(1, Math.round(ttl / 3600)) } });
  await record_event(idp, {
    type: "invitation_sent",
    outcome: "success",
    user_id: user.id,
    ip: source.ip ?? null,
    details: { username: user.username, resent, ...(source.via ? { via: source.via } : {}) },
  });
  return { user, resent, expires_at };
}

/** An invitation link that can still be used, with its account; null when it is used, expired or unknown. */
export async function open_invitation(idp: Provider, token: string): Promise<{ token: UserTokenRow; user: UserRow } | null> {
  const found = await find_link_token(idp, token, "invitation");
  return found === null || found.user.status !== "invited" ? null : { token: found.row, user: found.user };
}

export type AcceptInput = { token: string; username: string; password: string; confirm_password: string };

export type AcceptOutcome = { kind: "refused"; field: "username" | "password" | "confirm_password"; message: string } | { kind: "invalid" } | { kind: "accepted"; user: UserRow };

/** Accepts an invitation: checks the form, then consumes the link (once) and activates the account. */
export async function accept_invitation(idp: Provider, input: AcceptInput, ip: string): Promise<AcceptOutcome> {
  const opened = await open_invitation(idp, input.token);
  if (opened === null) return { kind: "invalid" };
  const username = input.username.trim().normalize("NFC");
  const username_refused = username_problem(username);
  if (username_refused !== null) return { kind: "refused", field: "username", message: username_refused };
  if (username !== opened.user.username) {
    const holder = await idp.store.get_user_by_username(username);
    if (holder !== null && holder.id !== opened.user.id) return { kind: "refused", field: "username", message: USERNAME_TAKEN };
  }
  const problem = chosen_password_problem(idp, input.password, input.confirm_password, { username, email: opened.user.email });
  if (problem !== null) return { kind: "refused", field: problem.field === "confirm" ? "confirm_password" : "password", message: problem.message };
  const password_hash = await hash_password(input.password, idp.config.argon2);

  // Single use: of two submissions of one link, only the one that deletes the token goes on.
  const now = idp.now();
  const redeemed = await redeem_link_token(idp, input.token, "invitation");
  if (redeemed === null || redeemed.row.user_id !== opened.user.id || redeemed.user.status !== "invited") return { kind: "invalid" };
  const consumed = redeemed.row;
  const current = redeemed.user;
  let user: UserRow | null;
  try {
    user = await idp.store.update_user(current.id, {
      username,
      password_hash,
      status: "active",
      // The link went to this address: following it proves the address (if it is still the account's).
      email_verified: current.email !== null && consumed.email !== null && address_key(current.email) === address_key(consumed.email),
      updated_at: now,
    });
  } catch (error) {
    if (error instanceof StoreConflictError) {
      // The name was taken in between: the link is used up, so issue the same link again.
      await idp.store.create_user_token(consumed);
      return { kind: "refused", field: "username", message: USERNAME_TAKEN };
    }
    throw error;
  }
  if (user === null) return { kind: "invalid" };
  await record_event(idp, { type: "invitation_accepted", outcome: "success", user_id: user.id, ip, at: now, details: { username: user.username } });
  return { kind: "accepted", user };
}
