/**
 * `idp attributes add|list|show|update|remove`: the custom user attributes the operator declares,
 * released as claims under their scope (rules in oidc/attributes/definitions.ts). Users' values
 * are set with `idp users update NAME --attribute KEY=VALUE` (src/cli/users_update.ts).
 */
import { AdminError } from "../oidc/admin/errors.ts";
import { add_attribute, remove_attribute, show_attribute, update_attribute } from "../oidc/attributes/definitions.ts";
import { ATTRIBUTE_TYPES, type AttributeDefinitionRow } from "../store/types.ts";
import type { CliContext } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import { format_time, write_record, write_table } from "./output.ts";
import { command, type ArgsOf, type Command, type CommandSpec, type OptionSpecs } from "./spec.ts";

const now = () => Math.floor(Date.now() / 1000);

function shown(definition: AttributeDefinitionRow) {
  return { ...definition };
}

/** Runs an attribute rule, its refusals as the CLI's errors (exit 1). */
async function admin<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
}

function print(ctx: CliContext, definition: AttributeDefinitionRow, heading: string | null): void {
  ctx.emit(shown(definition), (write) => {
    if (heading !== null) write(`${heading}\n\n`);
    write_record(write, { ...shown(definition), created_at: format_time(definition.created_at), updated_at: format_time(definition.updated_at) });
  });
}

/** `--user-editable` / `--not-user-editable`, `--required` / `--optional`: at most one of each pair. */
function flag_pair(yes: boolean, no: boolean, names: [string, string]): boolean | undefined {
  if (yes && no) throw new UsageError(`--${names[0]} and --${names[1]} exclude each other`);
  return yes ? true : no ? false : undefined;
}

const ADD = {
  summary: "declare a user attribute, released as a claim under a scope",
  positionals: ["name"],
  options: {
    type: { type: "string", value: "T", required: true, help: `its values' type: ${ATTRIBUTE_TYPES.join(", ")}` },
    scope: { type: "string", value: "S", help: "the scope that releases it: profile (default), email, address, phone, groups or a scope of your own" },
    claim: { type: "string", value: "C", help: "the claim name it is released under (default: the attribute's name)" },
    user_editable: { type: "boolean", help: "users set it themselves on the account page" },
    required: { type: "boolean", help: "the account page asks users for it" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function add(ctx: CliContext, { flags, positionals }: ArgsOf<typeof ADD>): Promise<void> {
  const [name] = positionals as [string];
  if (flags.type === undefined) throw new UsageError("attributes add needs --type");
  const type = flags.type;
  const made = await admin(async () =>
    add_attribute(await ctx.store(), { name, type, scope: flags.scope, claim: flags.claim, user_editable: flags.user_editable, required: flags.required }, now()),
  );
  await ctx.audit({ type: "attribute_created", details: { name: made.name, type: made.type, scope: made.scope, claim: made.claim } });
  print(ctx, made, `Declared attribute ${made.name}, released as the claim ${made.claim} with the scope ${made.scope}.`);
}

const LIST = { summary: "list the declared attributes" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const definitions = (await (await ctx.store()).list_attribute_definitions()).map(shown);
  ctx.emit(definitions, (write) => {
    if (definitions.length === 0) return write("No attributes.\n");
    write_table(
      write,
      ["name", "type", "scope", "claim", "user editable", "required"],
      definitions.map((d) => [d.name, d.type, d.scope, d.claim, d.user_editable ? "yes" : "no", d.required ? "yes" : "no"]),
    );
  });
}

const SHOW = { summary: "show one attribute", positionals: ["name"] } as const satisfies CommandSpec<OptionSpecs>;

async function show(ctx: CliContext, { positionals }: ArgsOf<typeof SHOW>): Promise<void> {
  const [name] = positionals as [string];
  print(ctx, await admin(async () => show_attribute(await ctx.store(), name)), null);
}

const UPDATE = {
  summary: "change an attribute's scope, claim name or flags (its name and type stay)",
  positionals: ["name"],
  options: {
    scope: ADD.options.scope,
    claim: { type: "string", value: "C", help: "the claim name it is released under" },
    user_editable: { type: "boolean", help: "users set it themselves on the account page" },
    not_user_editable: { type: "boolean", help: "only administrators set it" },
    required: { type: "boolean", help: "the account page asks users for it" },
    optional: { type: "boolean", help: "the account page does not ask for it" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function update(ctx: CliContext, { flags, positionals }: ArgsOf<typeof UPDATE>): Promise<void> {
  const [name] = positionals as [string];
  const change = {
    scope: flags.scope,
    claim: flags.claim,
    user_editable: flag_pair(flags.user_editable, flags.not_user_editable, ["user-editable", "not-user-editable"]),
    required: flag_pair(flags.required, flags.optional, ["required", "optional"]),
  };
  if (Object.values(change).every((value) => value === undefined))
    throw new UsageError("attributes update needs at least one of --scope, --claim, --user-editable, --not-user-editable, --required, --optional");
  const updated = await admin(async () => update_attribute(await ctx.store(), name, change, now()));
  const changed = Object.keys(change).filter((key) => change[key as keyof typeof change] !== undefined);
  await ctx.audit({ type: "attribute_updated", details: { name: updated.name, changed } });
  print(ctx, updated, `Updated attribute ${updated.name}.`);
}

const REMOVE = { summary: "remove an attribute and every user's value of it", positionals: ["name"] } as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [name] = positionals as [string];
  const store = await ctx.store();
  const found = await admin(async () => show_attribute(store, name));
  await admin(async () => remove_attribute(store, found.name));
  await ctx.audit({ type: "attribute_removed", details: { name: found.name } });
  ctx.emit({ removed: true, name: found.name }, (write) => write(`Removed attribute ${found.name} and every user's value of it.\n`));
}

export const attributes_commands: Record<string, Command> = {
  add: command(ADD, add),
  list: command(LIST, list),
  show: command(SHOW, show),
  update: command(UPDATE, update),
  remove: command(REMOVE, remove),
};
