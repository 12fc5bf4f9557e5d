/** Store types: Users. The rules every adapter keeps are in ../types.ts. */

import type { IfVersion, UnixSeconds } from "./common.ts";

/** OIDC Core §5.1.1 address claim. */
export type Address = {
  formatted?: string;
  street_address?: string;
  locality?: string;
  region?: string;
  postal_code?: string;
  country?: string;
};

/**
 * `active` signs in; `unverified` signed up and has not proven the address yet; `invited` has
 * not chosen a password yet; `disabled` is refused by every sign-in.
 */
export type UserStatus = "active" | "unverified" | "invited" | "disabled";

export const USER_STATUSES: readonly UserStatus[] = ["active", "unverified", "invited", "disabled"];

export type UserRow = {
  id: string;
  username: string;
  /** argon2id; "" when the user has no password (invited, or signs in another way): password sign-in always fails. */
  password_hash: string;
  name: string | null;
  given_name: string | null;
  family_name: string | null;
  picture: string | null;
  email: string | null;
  email_verified: boolean;
  phone_number: string | null;
  phone_number_verified: boolean;
  address: Address | null;
  totp_secret: string | null;
  totp_enabled_at: UnixSeconds | null;
  status: UserStatus;
  /** The language chosen for pages and mail (a catalog's tag); null: none chosen (migration 018). */
  locale: string | null;
  created_at: UnixSeconds;
  updated_at: UnixSeconds;
  /** Raised by every update of the row (migration 020); a compare-and-set names it (common.ts `IfVersion`). */
  version: number;
};

/** `id` defaults to a random UUID; omitted profile fields are null/false; `status` defaults to active. */
export type NewUser = Pick<UserRow, "username" | "password_hash"> & Partial<Omit<UserRow, "username" | "password_hash" | "version">>;

/**
 * One page of users in username order (keyset pagination): those after the username `after`
 * (compared by its stored key), optionally only those whose username or e-mail starts with `q`
 * (case-insensitive; the username part walks the username index).
 */
export type UserSearch = { q?: string; after?: string; limit: number };

/** The orders of browse_users: username A→Z, or the newest accounts first (no sign-in time is kept on users). */
export const USER_SORTS = ["username", "created"] as const;
export type UserSort = (typeof USER_SORTS)[number];

/** The most users one browse_users page holds: a bigger `limit` is cut to it. */
export const MAX_BROWSE_PAGE = 100;

/**
 * One page of users for the console's users page, with how many match in all (offset
 * pagination): `q` is any part of the username, e-mail or name, ignoring case (the username by
 * its key, store/usernames.ts; the e-mail and name by lower(), ASCII-only on SQLite); `status`
 * one status; `group_id` members of that group; `second_factor` true: with TOTP enabled or a
 * passkey, false: with neither. A substring cannot walk an index (LIKE '%q%'): each page and its
 * count read the users table once, so the page is bounded (MAX_BROWSE_PAGE) and the cost is one
 * scan of the table's rows however many match.
 */
export type UserBrowse = {
  q?: string | undefined;
  status?: UserStatus | undefined;
  group_id?: string | undefined;
  second_factor?: boolean | undefined;
  sort: UserSort;
  offset: number;
  limit: number;
};

export type UserBrowsePage = { users: UserRow[]; total: number };

/** An account delete_stale_users removed. */
export type StaleUser = Pick<UserRow, "id" | "username" | "email" | "status" | "created_at">;

/** Fields to change; `updated_at` defaults to now; `version` is the store's. */
export type UserPatch = Partial<Omit<UserRow, "id" | "created_at" | "version">>;

export interface UserStore {
  /** Raises StoreConflictError when the username is taken (case-insensitively). */
  create_user(user: NewUser): Promise<UserRow>;
  get_user_by_id(id: string): Promise<UserRow | null>;
  /** Case-insensitive. */
  get_user_by_username(username: string): Promise<UserRow | null>;
  /**
   * The users whose e-mail is `email`, ignoring ASCII case (several accounts may share one
   * address: nothing in the schema makes it unique); oldest first.
   */
  find_users_by_email(email: string): Promise<UserRow[]>;
  /** Ordered by username. */
  list_users(options?: { limit?: number; offset?: number }): Promise<UserRow[]>;
  /** Keyset pagination for the admin API: see UserSearch. */
  search_users(query: UserSearch): Promise<UserRow[]>;
  /** The console's filtered, sorted, counted page of users: see UserBrowse. */
  browse_users(query: UserBrowse): Promise<UserBrowsePage>;
  /** Returns the updated row, or null when there is no such user (or, with `if_version`, it changed: IfVersion). */
  update_user(id: string, patch: UserPatch, options?: IfVersion): Promise<UserRow | null>;
  /** Also deletes the user's sessions, grants, codes, tokens and recovery codes. False when there is no such user (or, with `if_version`, it changed). */
  delete_user(id: string, options?: IfVersion): Promise<boolean>;
  /**
   * Deletes at most `limit` accounts that were never completed, as delete_user does, and returns
   * them (for the audit log): `unverified` ones created at or before `before` with no unexpired
   * e-mail verification link at `now`; `invited` ones created at or before `before` whose every
   * invitation link expired at or before `before`.
   */
  delete_stale_users(before: UnixSeconds, now: UnixSeconds, limit: number): Promise<StaleUser[]>;
  /** Replaces all recovery codes of the user with these hashes. */
  set_recovery_codes(user_id: string, code_hashes: string[], now?: UnixSeconds): Promise<void>;
  /** Atomic single use: true once for a valid unused code, false afterwards. */
  consume_recovery_code(user_id: string, code_hash: string, now?: UnixSeconds): Promise<boolean>;
  /** How many unused recovery codes are left. */
  count_recovery_codes(user_id: string): Promise<number>;
  /**
   * How many users still have a password hash imported from another provider: one that is
   * neither "" nor argon2id (oidc/crypto/foreign_hashes.ts `is_foreign_hash`, the same rule).
   */
  count_foreign_password_hashes(): Promise<number>;
}
