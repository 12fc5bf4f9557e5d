/** Store types: Groups of users. The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

export type GroupRow = {
  id: string;
  /** As created; unique case-insensitively (store/group_names.ts). */
  name: string;
  description: string | null;
  created_at: UnixSeconds;
};

/** `id` defaults to a random UUID. */
export type NewGroup = Pick<GroupRow, "name"> & Partial<Omit<GroupRow, "name">>;

/** A group with its number of members (for listings). */
export type GroupSummary = GroupRow & { members: number };

/** A member of a group, with the username to show. */
export type GroupMember = { user_id: string; username: string; added_at: UnixSeconds };

export interface GroupStore {
  /**
   * Raises StoreError for a name that breaks the rule (store/group_names.ts) and
   * StoreConflictError when the name is taken (case-insensitively).
   */
  create_group(group: NewGroup): Promise<GroupRow>;
  /** Case-insensitive. */
  get_group_by_name(name: string): Promise<GroupRow | null>;
  get_group_by_id(id: string): Promise<GroupRow | null>;
  /**
   * Gives the group another name (and description when given; undefined keeps it). Null for an
   * unknown group; StoreError for a name that breaks the rule, StoreConflictError when it is taken.
   */
  rename_group(id: string, name: string, description?: string | null): Promise<GroupRow | null>;
  /** Ordered by name (case-insensitively), each with its number of members. */
  list_groups(): Promise<GroupSummary[]>;
  /** Also removes its memberships. */
  delete_group(id: string): Promise<boolean>;
  /** False when the user already is a member; StoreReferenceError for an unknown group or user. */
  add_group_member(group_id: string, user_id: string, now?: UnixSeconds): Promise<boolean>;
  /** False when the user was not a member. */
  remove_group_member(group_id: string, user_id: string): Promise<boolean>;
  /** Ordered by username. */
  list_group_members(group_id: string): Promise<GroupMember[]>;
  /**
   * The names of the user's groups, ordered by name (case-insensitively); empty for an unknown
   * user. One indexed query: it runs on the token path (ID Tokens, userinfo, access policy).
   */
  list_user_groups(user_id: string): Promise<string[]>;
  /**
   * Makes the memberships that `upstream`'s group mapping added for the user exactly `group_ids`:
   * adds the missing ones (marked as the upstream's; an existing membership keeps its origin) and
   * removes those marked as the upstream's that are not listed. Memberships an administrator
   * added are never removed. Returns the names of the groups joined and left. One transaction.
   */
  sync_upstream_group_members(upstream: string, user_id: string, group_ids: readonly string[], now?: UnixSeconds): Promise<{ added: string[]; removed: string[] }>;
}
