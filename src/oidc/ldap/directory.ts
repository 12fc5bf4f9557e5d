/**
 * Reading the directory from the store, per request, as one viewer may see it. Only active
 * users are entries. What each identity sees:
 *
 * - a service account: every user and group; one created with `--group G` only the members of
 *   G and the group G itself (a group that no longer exists shows nothing, never everything);
 * - a user (after binding with their password): their own entry and the groups they are in,
 *   whose `member` lists show only them;
 * - nobody (no bind, or a refused one): the root DSE only (session.ts).
 *
 * The account behind a bind is read again at each request (`view_of`).
 *
 * A user's `memberOf` names all their groups. Users are read by username when the filter asks
 * for one `uid` (or `mail`) value, which is one indexed lookup (`(&(objectClass=inetOrgPerson)(uid=alice))`),
 * else in pages of the users table; groups by name for one `cn`, else all (their number is small).
 */
import type { Provider } from "../provider.ts";
import type { GroupRow, JsonValue, UserRow } from "../../store/types.ts";
import { custom_types } from "./custom_attributes.ts";
import { group_entry, user_entry } from "./entries.ts";
import type { Filter } from "./filter.ts";
import type { Entry } from "./filter_match.ts";
import { attribute_type, normalized } from "./schema.ts";
import type { Tree } from "./tree.ts";

export type Viewer = { kind: "anonymous" } | { kind: "user"; user_id: string; username: string; dn: string } | { kind: "service"; name: string; dn: string };

/** What a bound identity may see: null is everything of that kind. */
export type View = { users: ReadonlySet<string> | null; groups: ReadonlySet<string> | null };

/** The rows one page of a scan reads. */
export const PAGE = 500;

export type DirectoryOptions = { tree: Tree; posix: boolean; posix_first_id: number };

/**
 * What the viewer sees now: the account is read again at each request, so a user disabled or a
 * service account removed since its bind sees nothing more from that moment.
 */
export async function view_of(idp: Provider, viewer: Exclude<Viewer, { kind: "anonymous" }>): Promise<View> {
  const nothing: View = { users: new Set(), groups: new Set() };
  if (viewer.kind === "user") {
    const user = await idp.store.get_user_by_id(viewer.user_id);
    if (user === null || user.status !== "active") return nothing;
    const groups = await idp.store.list_directory_memberships({ user_ids: [viewer.user_id] });
    return { users: new Set([viewer.user_id]), groups: new Set(groups.map((m) => m.group_id)) };
  }
  const account = await idp.store.get_ldap_service_account(viewer.name);
  if (account === null) return nothing;
  if (account.group_name === null) return { users: null, groups: null };
  const group = await idp.store.get_group_by_name(account.group_name);
  if (group === null) return nothing;
  const members = await idp.store.list_directory_memberships({ group_ids: [group.id] });
  return { users: new Set(members.map((m) => m.user_id)), groups: new Set([group.id]) };
}

/**
 * The values a filter requires `attribute` to equal one of, when it does (an equality in an
 * `and`, or in every branch of an `or`); null when any value could match.
 */
export function required_values(filter: Filter, attribute: string): string[] | null {
  switch (filter.type) {
    case "equal":
    case "approx":
      return attribute_type(filter.attribute)?.name === attribute ? [filter.value.trim()] : null;
    case "and":
      for (const f of filter.filters) {
        const values = required_values(f, attribute);
        if (values !== null) return values;
      }
      return null;
    case "or": {
      if (filter.filters.length === 0) return [];
      const all = filter.filters.map((f) => required_values(f, attribute));
      return all.every((v) => v !== null) ? (all as string[][]).flat() : null;
    }
    default:
      return null;
  }
}

/** False when the filter requires an objectClass none of `classes` is: that kind of entry cannot match. */
export function may_have_class(filter: Filter, classes: readonly string[]): boolean {
  const wanted = required_values(filter, "objectClass");
  if (wanted === null) return true;
  const own = new Set(classes.map((c) => normalized("text", c)));
  return wanted.some((c) => own.has(normalized("text", c)));
}

const visible = (set: ReadonlySet<string> | null, id: string) => set === null || set.has(id);

/** The users that may match `filter` and that the view shows, a page at a time. */
async function* user_rows(idp: Provider, view: View, filter: Filter): AsyncGenerator<UserRow[]> {
  const keep = (rows: (UserRow | null)[]) => rows.filter((u): u is UserRow => u !== null && u.status === "active" && visible(view.users, u.id));
  const usernames = required_values(filter, "uid");
  if (usernames !== null) {
    for (let i = 0; i < usernames.length; i += PAGE) yield keep(await Promise.all(usernames.slice(i, i + PAGE).map((u) => idp.store.get_user_by_username(u))));
    return;
  }
  const emails = required_values(filter, "mail");
  if (emails !== null) {
    for (const email of emails) yield keep(await idp.store.find_users_by_email(email));
    return;
  }
  if (view.users !== null && view.users.size <= PAGE) {
    // By username, as the pages below come: the memberships the view was made of have no order.
    const rows = keep(await Promise.all([...view.users].map((id) => idp.store.get_user_by_id(id))));
    yield rows.sort((a, b) => a.username.toLowerCase().localeCompare(b.username.toLowerCase()));
    return;
  }
  for (let offset = 0; ; offset += PAGE) {
    const page = await idp.store.list_users({ limit: PAGE, offset });
    yield keep(page);
    if (page.length < PAGE) return;
  }
}

/** User entries (with memberOf and POSIX numbers) that may match `filter`, a page at a time. */
export async function* user_entries(idp: Provider, options: DirectoryOptions, view: View, filter: Filter): AsyncGenerator<Entry[]> {
  for await (const rows of user_rows(idp, view, filter)) {
    if (rows.length === 0) continue;
    const ids = rows.map((u) => u.id);
    const memberships = await idp.store.list_directory_memberships({ user_ids: ids });
    const groups = new Map<string, string[]>();
    for (const m of memberships) groups.set(m.user_id, [...(groups.get(m.user_id) ?? []), m.group_name]);
    const numbers = options.posix ? await idp.store.ldap_posix_numbers(ids, options.posix_first_id) : {};
    const custom = custom_types(await idp.store.list_attribute_definitions());
    const values = new Map<string, Record<string, JsonValue>>();
    for (const row of custom.length > 0 ? await idp.store.list_user_attribute_values(ids) : []) {
      const own = values.get(row.user_id) ?? {};
      own[row.name] = row.value;
      values.set(row.user_id, own);
    }
    yield rows.map((user) => user_entry(options.tree, user, by_name(groups.get(user.id) ?? []), numbers[user.id] ?? null, custom, values.get(user.id)));
  }
}

/** Group entries (with their members as the view shows them) that may match `filter`. */
export async function group_entries(idp: Provider, options: DirectoryOptions, view: View, filter: Filter): Promise<Entry[]> {
  const names = required_values(filter, "cn");
  const rows: GroupRow[] =
    names !== null ? (await Promise.all(names.map((name) => idp.store.get_group_by_name(name)))).filter((g): g is GroupRow => g !== null) : await idp.store.list_groups();
  const shown = rows.filter((g) => visible(view.groups, g.id));
  if (shown.length === 0) return [];
  const ids = shown.map((g) => g.id);
  const members = new Map<string, string[]>();
  for (const m of await idp.store.list_directory_memberships({ group_ids: ids })) {
    if (visible(view.users, m.user_id)) members.set(m.group_id, [...(members.get(m.group_id) ?? []), m.username]);
  }
  const numbers = options.posix ? await idp.store.ldap_posix_numbers(ids, options.posix_first_id) : {};
  return shown.map((group) => group_entry(options.tree, group, by_name(members.get(group.id) ?? []), numbers[group.id] ?? null));
}

/** Names in a stable order (case-insensitively), so every answer lists them alike. */
function by_name(names: string[]): string[] {
  return names.sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
}
