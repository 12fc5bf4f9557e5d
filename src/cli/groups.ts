/**
 * `idp groups add|list|remove|members`: groups of users. A user's groups are released to clients
 * with the scope `groups` and can restrict who may use a client (`idp clients add|update
 * --allowed-group`): oidc/claims/groups.ts has the rules.
 */
import { group_name_key } from "../store/group_names.ts";
import type { ClientRow, GroupRow, Store } from "../store/types.ts";
import { AdminError } from "../oidc/admin/errors.ts";
import { MAX_DESCRIPTION, create_group } from "../oidc/admin/groups.ts";
import { must, type CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { FORCE, lockout_note } from "./lockout.ts";
import { format_time, write_table } from "./output.ts";
import { command, group, type ArgsOf, type Command, type CommandGroup, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { find_user } from "./users.ts";
import { check_group_deletion, is_admin_group } from "../oidc/admin/lasting_power.ts";

export async function find_group(store: Store, name: string): Promise<GroupRow> {
  return must(await store.get_group_by_name(name), `no group "${name}"`);
}

/** The clients whose allowed_groups or roles name the group (told when it is removed). */
function clients_naming(clients: readonly ClientRow[], name: string): string[] {
  const key = group_name_key(name);
  const names = (value: unknown): string[] =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : value !== null && typeof value === "object" ? Object.keys(value) : [];
  return clients
    .filter((client) => [...names(client.metadata.allowed_groups), ...names(client.metadata.roles)].some((group) => group_name_key(group) === key))
    .map((client) => client.client_id);
}

const ADD = {
  summary: "create a group",
  positionals: ["name"],
  options: { description: { type: "string", value: "D", help: `what the group is for (at most ${MAX_DESCRIPTION} characters)` } },
} as const satisfies CommandSpec<OptionSpecs>;

async function add(ctx: CliContext, { flags, positionals }: ArgsOf<typeof ADD>): Promise<void> {
  const [name] = positionals as [string];
  if (flags.description !== undefined && flags.description.length > MAX_DESCRIPTION) throw new CliError(`--description must have at most ${MAX_DESCRIPTION} characters`);
  let group: GroupRow;
  try {
    group = await create_group(await ctx.store(), name, flags.description ?? null);
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.errors[0]?.field === "name" && error.error === "invalid_request" ? error.errors[0].message : error.message);
    throw error;
  }
  await ctx.audit({ type: "group_created", details: { group: group.name } });
  ctx.emit(group, (write) => write(`Created group ${group.name}.\n`));
}

const LIST = { summary: "list the groups with their number of members" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const groups = await (await ctx.store()).list_groups();
  ctx.emit(groups, (write) => {
    if (groups.length === 0) return write("No groups.\n");
    write_table(
      write,
      ["name", "members", "description", "created"],
      groups.map((g) => [g.name, g.members, g.description, format_time(g.created_at)]),
    );
  });
}

const REMOVE = { summary: "remove a group and its memberships", positionals: ["name"] } as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [name] = positionals as [string];
  const store = await ctx.store();
  const group = await find_group(store, name);
  // The console's group: deleting it would lock every administrator out (change IDP_ADMIN_GROUP first).
  try {
    check_group_deletion({ config: ctx.config() }, group);
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
  const members = (await store.list_group_members(group.id)).length;
  if (!(await store.delete_group(group.id))) throw new CliError(`no group "${name}"`);
  await ctx.audit({ type: "group_deleted", details: { group: group.name, members } });
  // A client whose policy names the group now refuses the former members (nobody is in it).
  const naming = clients_naming(await store.list_clients(), group.name);
  ctx.emit({ removed: true, name: group.name, members, clients_naming_it: naming }, (write) => {
    write(`Removed group ${group.name} and its ${members} membership(s).\n`);
    if (naming.length > 0) write(`Still named in allowed_groups or roles of: ${naming.join(", ")} (see idp clients update).\n`);
  });
}

const MEMBERS_ADD = { summary: "add a user to a group", positionals: ["group", "user"] } as const satisfies CommandSpec<OptionSpecs>;

async function members_add(ctx: CliContext, { positionals }: ArgsOf<typeof MEMBERS_ADD>): Promise<void> {
  const [group_name, username] = positionals as [string, string];
  const store = await ctx.store();
  const group = await find_group(store, group_name);
  const user = await find_user(store, username);
  const added = await store.add_group_member(group.id, user.id);
  if (added) await ctx.audit({ type: "group_member_added", user_id: user.id, details: { group: group.name } });
  ctx.emit({ group: group.name, user_id: user.id, username: user.username, added }, (write) =>
    write(added ? `Added ${user.username} to ${group.name}.\n` : `${user.username} already is in ${group.name}.\n`),
  );
}

const MEMBERS_REMOVE = {
  summary:
    "remove a user from a group (clients that require it refuse them at the next sign-in or token refresh; the last active administrator leaves the admin group only with --force)",
  positionals: ["group", "user"],
  options: { force: FORCE },
} as const satisfies CommandSpec<OptionSpecs>;

async function members_remove(ctx: CliContext, { flags, positionals }: ArgsOf<typeof MEMBERS_REMOVE>): Promise<void> {
  const [group_name, username] = positionals as [string, string];
  const store = await ctx.store();
  const group = await find_group(store, group_name);
  const user = await find_user(store, username);
  const admin_group = is_admin_group({ config: ctx.config() }, group.name);
  const forced = admin_group ? await lockout_note(ctx, store, user, "remove_admin", flags.force) : null;
  if (!(await store.remove_group_member(group.id, user.id))) throw new CliError(`${user.username} is not in group ${group.name}`);
  await ctx.audit({ type: "group_member_removed", user_id: user.id, details: { group: group.name, ...(forced !== null && { forced_last_admin: true }) } });
  ctx.emit({ group: group.name, user_id: user.id, username: user.username, removed: true, ...(forced !== null && { forced_last_admin: true }) }, (write) => {
    write(`Removed ${user.username} from ${group.name}; clients that require the group refuse the user at the next sign-in or token refresh.\n`);
    if (forced !== null) write(`${forced}\n`);
  });
}

const MEMBERS_LIST = { summary: "list the members of a group", positionals: ["group"] } as const satisfies CommandSpec<OptionSpecs>;

async function members_list(ctx: CliContext, { positionals }: ArgsOf<typeof MEMBERS_LIST>): Promise<void> {
  const [group_name] = positionals as [string];
  const store = await ctx.store();
  const group = await find_group(store, group_name);
  const members = await store.list_group_members(group.id);
  ctx.emit({ group: group.name, members }, (write) => {
    if (members.length === 0) return write(`No members in ${group.name}.\n`);
    write_table(
      write,
      ["username", "id", "added"],
      members.map((m) => [m.username, m.user_id, format_time(m.added_at)]),
    );
  });
}

/** `idp groups members add|remove|list ...` */
const members = group({
  summary: "the members of a group",
  commands: { add: command(MEMBERS_ADD, members_add), remove: command(MEMBERS_REMOVE, members_remove), list: command(MEMBERS_LIST, members_list) },
});

/** The sub-commands, in the order the help lists them. */
export const groups_commands: Record<string, Command | CommandGroup> = { add: command(ADD, add), list: command(LIST, list), remove: command(REMOVE, remove), members };
