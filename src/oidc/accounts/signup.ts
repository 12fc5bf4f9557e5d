/**
 * Accounts people create themselves (IDP_SIGNUP=open): the checks of the sign-up form, the
 * account, its verification mail, and what the page says when the address already has an
 * account.
 *
 * Enumeration (OWASP Authentication Cheat Sheet, "Account creation"): a username is the name
 * people sign in with, so sign-up must say when one is taken; an e-mail address must not be
 * revealed. With verification required (the default) a sign-up with an address that already
 * has an account gets the same "check your mail" page, after the same work (an argon2id hash,
 * one queued mail), and the owner of the address is told by mail instead. With verification
 * off the account would be usable at once, so the answer cannot be the same: the page says the
 * address is in use (SECURITY.md, "Sign-up and enumeration"). Attempts are throttled per address
 * (IDP_SIGNUP_PER_IP per IDP_SIGNUP_WINDOW_SECONDS) and audited (`signup`).
 */
import { domainToUnicode } from "node:url";
import { record_event } from "../audit.ts";
import { Throttled } from "../errors.ts";
import { COUNTERS, reserve } from "../limits/counters.ts";
import type { Provider } from "../provider.ts";
import { hash_password } from "../../platform/passwords.ts";
import { StoreConflictError, type UserRow } from "../../store/types.ts";
import { stored_username } from "../../store/usernames.ts";
import { address_key, domain_allowed, parse_address } from "./emails.ts";
import { chosen_password_problem } from "./chosen_password.ts";
import { send_verification } from "./verification.ts";

/** The usernames the CLI accepts (src/cli/users.ts), so a self-made account looks like any other. */
export const USERNAME = /^[\p{L}\p{N}._@+-]{1,64}$/u;
export const MAX_NAME = 256;

export type SignupField = "username" | "email" | "name" | "password" | "confirm_password";

export type SignupInput = { username: string; email: string; name: string; password: string; confirm_password: string };

export type SignupOutcome =
  /** Nothing was created: the message names the field. */
  | { kind: "refused"; field: SignupField; message: string }
  /** A new account that signs in now (verification not required). */
  | { kind: "active"; user: UserRow }
  /** "Check your mail": a new unverified account, or an address that already had one (not revealed). */
  | { kind: "check_mail"; email: string };

/** Why a username is refused for a new account; null when its form is fine. */
export function username_problem(username: string): string | null {
  if (username === "") return "Username: choose a username.";
  if (!USERNAME.test(username)) return "Username: use 1 to 64 letters, digits or . _ @ + - (no spaces).";
  if (stored_username(username) === null) return `Username: “${username}” would sign in as “${username.normalize("NFKC")}”. Type it that way instead.`;
  return null;
}

export const USERNAME_TAKEN = "Username: that username is already taken. Choose another.";

/** The sign-up domains in words for the page ("example.com or example.org"); null when any is allowed. */
export function domains_in_words(domains: readonly string[]): string | null {
  if (domains.length === 0) return null;
  const shown = domains.map((d) => domainToUnicode(d));
  return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(", ")} or ${shown[shown.length - 1]}`;
}

export const SIGNUP_PATH = "/signup";

/** The sign-up page, carrying the authorization request it is opened from; null unless sign-up is open. */
export function signup_link(idp: Provider, interaction_id: string | null = null): string | null {
  if (idp.config.signup.mode !== "open") return null;
  const base = `${idp.config.issuer}${SIGNUP_PATH}`;
  return interaction_id === null ? base : `${base}?interaction=${encodeURIComponent(interaction_id)}`;
}

/**
 * Checks the form, creates the account and mails the verification link (see the module comment).
 * `interaction`: the authorization request the sign-up came from; the verification link carries
 * it, so confirming the address leads back to that request's sign-in.
 */
export async function sign_up(idp: Provider, input: SignupInput, ip: string, interaction: string | null = null): Promise<SignupOutcome> {
  const settings = idp.config.signup;
  const refuse = (field: SignupField, message: string): SignupOutcome => ({ kind: "refused", field, message });

  const username = input.username.trim().normalize("NFC");
  const username_refused = username_problem(username);
  if (username_refused !== null) return refuse("username", username_refused);
  const parsed = parse_address(input.email);
  if ("problem" in parsed) return refuse("email", parsed.problem);
  if (!domain_allowed(settings.domains, parsed.domain)) {
    return refuse("email", `E-mail address: accounts can be created only with an address at ${domains_in_words(settings.domains)}.`);
  }
  const name = input.name.trim().normalize("NFC");
  if ([...name].length > MAX_NAME) return refuse("name", `Name: use at most ${MAX_NAME} characters.`);
  const password_refused = chosen_password_problem(idp, input.password, input.confirm_password, { username, email: parsed.email });
  if (password_refused !== null) return refuse(password_refused.field === "confirm" ? "confirm_password" : "password", password_refused.message);

  // Counted once the form is complete: what is throttled is the question "is this taken?" and
  // the accounts made, not typing mistakes (a window of IDP_SIGNUP_WINDOW_SECONDS per address).
  const now = idp.now();
  const reservation = await reserve(idp, COUNTERS.signups_per_ip, { ip }, now);
  if (!reservation.allowed) {
    await record_event(idp, { type: "signup", outcome: "failure", ip, at: now, details: { reason: "throttled" } });
    throw new Throttled("Too many accounts were created from your network. Wait a while and try again.", reservation.reset_at - now);
  }

  if ((await idp.store.get_user_by_username(username)) !== null) return refuse("username", USERNAME_TAKEN);
  const owners = await idp.store.find_users_by_email(parsed.email);
  const owner = owners.find((u) => address_key(u.email ?? "") === address_key(parsed.email)) ?? owners[0];
  const password_hash = await hash_password(input.password, idp.config.argon2);

  if (owner !== undefined) {
    await record_event(idp, { type: "signup", outcome: "failure", user_id: owner.id, ip, at: now, details: { reason: "email_in_use" } });
    if (!settings.require_verification) {
      return refuse("email", "E-mail address: an account already uses this address. Sign in to it, or use “Forgot password?” on the sign-in page.");
    }
    // The same page as a new account; the owner learns of it by mail (and how to sign in).
    if (idp.mail.enabled) {
      await idp.mail.send({
        to: owner.email!,
        template: "account_exists",
        data: { name: owner.name, username: owner.username, sign_in_link: `${idp.config.issuer}/account/login` },
      });
    }
    return { kind: "check_mail", email: parsed.email };
  }

  let user: UserRow;
  try {
    user = await idp.store.create_user({
      username,
      password_hash,
      name: name === "" ? null : name,
      email: parsed.email,
      email_verified: false,
      status: settings.require_verification ? "unverified" : "active",
      created_at: now,
      updated_at: now,
    });
  } catch (error) {
    // Another sign-up took the name between the check and the insert.
    if (error instanceof StoreConflictError) return refuse("username", USERNAME_TAKEN);
    throw error;
  }
  await record_event(idp, {
    type: "signup",
    outcome: "success",
    user_id: user.id,
    ip,
    at: now,
    details: { username: user.username, verification_required: settings.require_verification },
  });
  if (idp.mail.enabled) await send_verification(idp, user, parsed.email, interaction === null ? {} : { interaction });
  return settings.require_verification ? { kind: "check_mail", email: parsed.email } : { kind: "active", user };
}
