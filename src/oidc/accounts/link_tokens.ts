/**
 * The single-use links mailed to a person: password reset, e-mail verification, invitation,
 * e-mail change. One way to make them and one way to redeem them:
 *
 * - The token is 256 random bits (crypto/secrets.ts `random_token`); only its SHA-256 is stored
 *   (store `user_tokens`), so a copy of the database holds no usable link.
 * - Issuing a token voids the user's older tokens of the same purpose (a newer mail wins).
 * - It travels in the link's query string (`?token=`): the request log records paths only, and
 *   every page sends `Referrer-Policy: no-referrer`, so it does not leak to logs or other sites.
 * - A page shown from the link (GET) only looks the token up (`find_link_token`); the form it
 *   posts redeems it atomically (`redeem_link_token`, store `consume_user_token`): of two
 *   concurrent posts one wins, and a used, expired, voided or forged token is refused the same way.
 */
import { random_token, sha256 } from "../crypto/secrets.ts";
import { PageError } from "../errors.ts";
import type { Provider } from "../provider.ts";
import type { Store, UserRow, UserTokenPurpose, UserTokenRow } from "../../store/types.ts";

/** The page each purpose's link opens, below the issuer. */
export const LINK_PATHS: { readonly [P in UserTokenPurpose]: string } = {
  password_reset: "/password/reset",
  email_verification: "/email/verify",
  invitation: "/invitation",
  email_change: "/email/confirm",
};

/** Tokens we issue: 43 base64url characters; anything else is not looked up at all. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function is_link_token(value: string | undefined): value is string {
  return value !== undefined && TOKEN.test(value);
}

/** The link of a token: the purpose's page under the issuer, the token and any `params` (an interaction to return to) in the query. */
export function link_url(idp: Provider, purpose: UserTokenPurpose, token: string, params: Record<string, string> = {}): string {
  const query = new URLSearchParams({ token, ...params });
  return `${idp.config.issuer}${LINK_PATHS[purpose]}?${query.toString()}`;
}

/**
 * Makes a link for `user` valid `ttl_seconds`, voiding their older links of this purpose.
 * `email` is the address the link goes to (default the user's; the new address for an e-mail
 * change): redeeming it can check that the address is still the one it proved.
 */
export async function issue_link_token(
  idp: Provider,
  user: UserRow,
  purpose: UserTokenPurpose,
  ttl_seconds: number,
  email: string | null = user.email,
  params: Record<string, string> = {},
): Promise<{ token: string; link: string; expires_at: number }> {
  const token = random_token(32);
  const now = idp.now();
  const expires_at = now + ttl_seconds;
  await idp.store.create_user_token({ token_hash: sha256(token), user_id: user.id, purpose, email, created_at: now, expires_at: expires_at }, { replace: true });
  return { token, link: link_url(idp, purpose, token, params), expires_at };
}

export type LinkTarget = { row: UserTokenRow; user: UserRow };

/** The live token and its user, without using it (to show the page); null for a used, expired, voided or forged one. */
export async function find_link_token(idp: Provider, token: string | undefined, purpose: UserTokenPurpose): Promise<LinkTarget | null> {
  if (!is_link_token(token)) return null;
  const row = await idp.store.find_user_token(sha256(token), purpose, idp.now());
  if (row === null) return null;
  const user = await idp.store.get_user_by_id(row.user_id);
  return user === null ? null : { row, user };
}

/** Uses the token, atomically (single use); null for a used, expired, voided or forged one. */
export async function redeem_link_token(idp: Provider, token: string | undefined, purpose: UserTokenPurpose): Promise<LinkTarget | null> {
  if (!is_link_token(token)) return null;
  const row = await idp.store.consume_user_token(sha256(token), purpose, idp.now());
  if (row === null) return null;
  const user = await idp.store.get_user_by_id(row.user_id);
  return user === null ? null : { row, user };
}

/**
 * Voids every link of the user, on every change of address (account page, administrator): each
 * was mailed to an address and acts on the account (a password reset, an e-mail verification, an
 * e-mail change, an invitation that sets the first password), and one still waiting in the old
 * mailbox must not set a password or prove an address. An invited account whose address an
 * administrator corrected gets a new invitation to the new address (`idp users invite`).
 */
export function void_address_links(store: Store, user_id: string): Promise<number> {
  return store.delete_user_tokens(user_id);
}

const WHAT: { readonly [P in UserTokenPurpose]: { title: string; again: string } } = {
  password_reset: { title: "This password reset link does not work", again: "Ask for a new one from the sign-in page (“Forgot password?”)." },
  email_verification: { title: "This confirmation link does not work", again: "Sign in to ask for a new one." },
  invitation: { title: "This invitation link does not work", again: "Ask the person who invited you for a new invitation." },
  email_change: { title: "This confirmation link does not work", again: "Change your e-mail address again from your account page to get a new link." },
};

/** The page for a link that cannot be used: it says why it may be and what to do, never which case it is. */
export function invalid_link(purpose: UserTokenPurpose): PageError {
  const { title, again } = WHAT[purpose];
  return new PageError(title, `The link was already used, has expired, or a newer one was sent since. ${again}`, "invalid_request");
}
