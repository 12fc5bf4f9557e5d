/**
 * `idp ldap service-accounts add|list|rotate|remove`: the accounts applications bind to the LDAP
 * directory with (IDP_LDAP_LISTEN). The password is printed once and stored as its SHA-256.
 * Rules in oidc/admin/ldap_service_accounts.ts; the bind DN comes from IDP_LDAP_BASE_DN (oidc/ldap/tree.ts).
 */
import { AdminError } from "../oidc/admin/errors.ts";
import { add_service_account, remove_service_account, rotate_service_account, type NewServiceAccount } from "../oidc/admin/ldap_service_accounts.ts";
import { service_dn, tree_of } from "../oidc/ldap/tree.ts";
import type { LdapServiceAccountRow } from "../store/types.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time, secret_notice, write_record, write_table } from "./output.ts";
import { command, group, type ArgsOf, type CommandGroup, type CommandSpec, type OptionSpecs } from "./spec.ts";

const now = () => Math.floor(Date.now() / 1000);

/** What the CLI shows of an account: never its password's hash. */
function shown(ctx: CliContext, account: LdapServiceAccountRow) {
  return {
    name: account.name,
    bind_dn: service_dn(tree_of(ctx.config()), account.name),
    group: account.group_name,
    created_at: format_time(account.created_at),
    password_created_at: format_time(account.secret_created_at),
  };
}

/** Runs an admin rule, its refusals as the CLI's errors. */
async function admin<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.errors[0]?.field === "name" && error.error !== "conflict" ? `NAME: ${error.errors[0].message}` : error.message);
    throw error;
  }
}

function print_new(ctx: CliContext, made: NewServiceAccount, verb: string): void {
  const record = { ...shown(ctx, made.account), password: made.password };
  ctx.emit(record, (write) => {
    write(`${verb} service account ${made.account.name}${made.account.group_name === null ? "" : ` (searches see the group ${made.account.group_name})`}.\n\n`);
    write_record(write, { bind_dn: record.bind_dn, password: made.password });
    secret_notice(write, "password");
  });
}

const ADD = {
  summary: "create a service account for an application; prints its bind DN and password (shown only once)",
  positionals: ["name"],
  options: { group: { type: "string", value: "G", help: "its searches see only the members of group G (and G)" } },
} as const satisfies CommandSpec<OptionSpecs>;

async function add(ctx: CliContext, { flags, positionals }: ArgsOf<typeof ADD>): Promise<void> {
  const [name] = positionals as [string];
  const made = await admin(async () => add_service_account(await ctx.store(), { name, group: flags.group }, now()));
  await ctx.audit({ type: "ldap_service_account_created", details: { name: made.account.name, group: made.account.group_name } });
  print_new(ctx, made, "Created");
}

const LIST = { summary: "list the service accounts" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const accounts = (await (await ctx.store()).list_ldap_service_accounts()).map((account) => shown(ctx, account));
  ctx.emit(accounts, (write) => {
    if (accounts.length === 0) return write("No service accounts.\n");
    write_table(
      write,
      ["name", "bind dn", "group", "password created"],
      accounts.map((a) => [a.name, a.bind_dn, a.group ?? "(whole directory)", a.password_created_at]),
    );
  });
}

const ROTATE = {
  summary: "give a service account a new password and print it (once); the old one stops working now",
  positionals: ["name"],
} as const satisfies CommandSpec<OptionSpecs>;

async function rotate(ctx: CliContext, { positionals }: ArgsOf<typeof ROTATE>): Promise<void> {
  const [name] = positionals as [string];
  const made = await admin(async () => rotate_service_account(await ctx.store(), name, now()));
  await ctx.audit({ type: "ldap_service_account_rotated", details: { name: made.account.name } });
  print_new(ctx, made, "New password for");
}

const REMOVE = {
  summary: "remove a service account: its binds fail, and sessions bound with it see nothing more",
  positionals: ["name"],
} as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [name] = positionals as [string];
  await admin(async () => remove_service_account(await ctx.store(), name));
  await ctx.audit({ type: "ldap_service_account_removed", details: { name } });
  ctx.emit({ removed: true, name }, (write) => write(`Removed service account ${name}.\n`));
}

export const ldap_commands: Record<string, CommandGroup> = {
  "service-accounts": group({
    summary: "accounts applications bind to the directory with",
    commands: { add: command(ADD, add), list: command(LIST, list), rotate: command(ROTATE, rotate), remove: command(REMOVE, remove) },
  }),
};
