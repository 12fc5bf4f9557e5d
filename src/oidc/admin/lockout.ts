/**
 * No one-click lockout: the rules every door (the console, the admin API, `idp`) applies before
 * a change that can take away the last way into the admin console.
 *
 * - An administrator does not disable, delete or remove from the admin group (IDP_ADMIN_GROUP)
 *   their own account: another administrator must (the console knows who acts; an API token is
 *   a client, and the command line is the operator on the host).
 * - Nobody disables, deletes or removes from the admin group the last active administrator (the
 *   only member of the group whose account is active): the console would have no one left. The
 *   command line, the break-glass path, may with an explicit `--force` (`force`), and says so.
 * - The admin group itself is never deleted while it is configured (lasting_power.ts
 *   `check_group_deletion`).
 *
 * Each refusal is a `conflict` AdminError whose words say why and what to do instead. Two
 * administrators disabling each other at the same instant can still both succeed: the check
 * reads, then the change writes; `idp admin grant` is the way back.
 */
import type { Store, UserRow } from "../../store/types.ts";
import { AdminError } from "./errors.ts";
import { group_name_key } from "../../store/group_names.ts";

/** The changes that can lock the administrators out. */
export type LockoutChange = "disable" | "delete" | "remove_admin";

export type LockoutProblem = { kind: "self" | "last_admin"; message: string };

const SELF: Record<LockoutChange, string> = {
  disable: "You cannot disable your own account: another administrator must do it.",
  delete: "You cannot delete your own account: another administrator must do it.",
  remove_admin: "You cannot remove yourself from the admin group: another administrator must do it.",
};

/** Whole sentences (each is a catalog message the console translates, locales/*.json `rules.admin_last_*`). */
const LAST: Record<LockoutChange, (username: string, group: string) => string> = {
  disable: (username, group) =>
    `${username} is the last active administrator (the only active member of the group ${group}): disabling them would leave nobody who can use the admin console. Make someone else an administrator first.`,
  delete: (username, group) =>
    `${username} is the last active administrator (the only active member of the group ${group}): deleting them would leave nobody who can use the admin console. Make someone else an administrator first.`,
  remove_admin: (username, group) =>
    `${username} is the last active administrator (the only active member of the group ${group}): removing them from it would leave nobody who can use the admin console. Make someone else an administrator first.`,
};

/** Is `user` an active member of `admin_group` (names compare without case)? */
export async function is_active_admin(store: Store, admin_group: string, user: UserRow): Promise<boolean> {
  if (user.status !== "active") return false;
  const groups = await store.list_user_groups(user.id);
  return groups.some((name) => group_name_key(name) === group_name_key(admin_group));
}

/** Whether an active member of `admin_group` other than `user_id` exists (stops at the first). */
async function another_active_admin(store: Store, admin_group: string, user_id: string): Promise<boolean> {
  const group = await store.get_group_by_name(admin_group);
  if (group === null) return false;
  for (const member of await store.list_group_members(group.id)) {
    if (member.user_id === user_id) continue;
    if ((await store.get_user_by_id(member.user_id))?.status === "active") return true;
  }
  return false;
}

/**
 * Why `change` of `target` would lock the administrators out, or null. `actor_id` is the person
 * making the change (the console's administrator); null for an API client or the command line.
 */
export async function lockout_problem(store: Store, admin_group: string, target: UserRow, change: LockoutChange, actor_id: string | null): Promise<LockoutProblem | null> {
  if (actor_id !== null && actor_id === target.id) return { kind: "self", message: SELF[change] };
  if (!(await is_active_admin(store, admin_group, target))) return null;
  if (await another_active_admin(store, admin_group, target.id)) return null;
  return { kind: "last_admin", message: LAST[change](target.username, admin_group) };
}

/**
 * Raises the refusal of `lockout_problem`. With `force` (the command line's `--force`) the last
 * administrator may go, and the answer is "forced" so the caller says what it did; a change of
 * one's own account is refused whatever `force` says.
 */
export async function check_lockout(
  store: Store,
  admin_group: string,
  target: UserRow,
  change: LockoutChange,
  options: { actor_id?: string | null; force?: boolean } = {},
): Promise<"forced" | null> {
  const problem = await lockout_problem(store, admin_group, target, change, options.actor_id ?? null);
  if (problem === null) return null;
  if (problem.kind === "last_admin" && options.force === true) return "forced";
  throw new AdminError("conflict", problem.message);
}
