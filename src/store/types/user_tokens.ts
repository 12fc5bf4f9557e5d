/**
 * Store types: link tokens mailed to users (password reset, e-mail verification, invitation,
 * e-mail change). The rules every adapter keeps are in ../types.ts.
 */

import type { UnixSeconds } from "./common.ts";

export type UserTokenPurpose = "password_reset" | "email_verification" | "invitation" | "email_change";

export const USER_TOKEN_PURPOSES: readonly UserTokenPurpose[] = ["password_reset", "email_verification", "invitation", "email_change"];

export type UserTokenRow = {
  /** SHA-256 of the 256-bit random token in the link: the token itself is never stored. */
  token_hash: string;
  /** The user it acts for (deleted with the user). */
  user_id: string;
  purpose: UserTokenPurpose;
  /** The address the link was sent to (the new address for email_change). */
  email: string | null;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
};

export interface UserTokenStore {
  /** Stores a token; with `replace` the user's other tokens of this purpose are deleted (a newer request voids older links). */
  create_user_token(token: Omit<UserTokenRow, "created_at"> & { created_at?: UnixSeconds }, options?: { replace?: boolean }): Promise<void>;
  /** The unexpired token of this purpose, or null (for showing a page before the form is posted). */
  find_user_token(token_hash: string, purpose: UserTokenPurpose, now: UnixSeconds): Promise<UserTokenRow | null>;
  /** Atomic single use: returns and deletes the unexpired token, null when absent, expired or already used. */
  consume_user_token(token_hash: string, purpose: UserTokenPurpose, now: UnixSeconds): Promise<UserTokenRow | null>;
  /** Voids the user's tokens (of one purpose, or all); returns how many. */
  delete_user_tokens(user_id: string, purpose?: UserTokenPurpose): Promise<number>;
}
