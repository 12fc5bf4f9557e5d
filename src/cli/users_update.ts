/**
 * `idp users update USER`: a user's profile names and custom attributes from the server, by the
 * same rules as the console and the API (oidc/admin/users.ts `change_user`,
 * oidc/attributes/values.ts). `--attribute KEY=VALUE` repeats; `KEY=` clears the attribute; a
 * list (`string[]`) takes comma-separated items or the key repeated.
 */
import { AdminError } from "../oidc/admin/errors.ts";
import { change_user, public_user, type UserChange } from "../oidc/admin/users.ts";
import { parse_attribute_assignments, read_user_attributes, set_user_attributes } from "../oidc/attributes/values.ts";
import type { CliContext } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import { command, type ArgsOf, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { find_user } from "./users.ts";

const UPDATE = {
  summary: "change a user's names or custom attributes (idp attributes)",
  positionals: ["username"],
  options: {
    name: { type: "string", value: "N", help: "full name (empty: clear it)" },
    given_name: { type: "string", value: "G", help: "given name (empty: clear it)" },
    family_name: { type: "string", value: "F", help: "family name (empty: clear it)" },
    attribute: {
      type: "string",
      value: "KEY=VALUE",
      multiple: true,
      help: "set an attribute (repeatable): a number, true or false, a list comma-separated or the key repeated; KEY= clears it",
    },
  },
} as const satisfies CommandSpec<OptionSpecs>;

/** The longest name kept (the console's and the account page's bound too). */
const MAX_NAME = 200;

function name_change(flag: string, value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed.length > MAX_NAME) throw new CliError(`--${flag} is longer than ${MAX_NAME} characters`);
  return trimmed === "" ? null : trimmed;
}

async function update(ctx: CliContext, { flags, positionals }: ArgsOf<typeof UPDATE>): Promise<void> {
  const [username] = positionals as [string];
  const profile: UserChange = {};
  const name = name_change("name", flags.name);
  const given_name = name_change("given-name", flags.given_name);
  const family_name = name_change("family-name", flags.family_name);
  if (name !== undefined) profile.name = name;
  if (given_name !== undefined) profile.given_name = given_name;
  if (family_name !== undefined) profile.family_name = family_name;
  if (Object.keys(profile).length === 0 && flags.attribute.length === 0) throw new UsageError("users update needs --name, --given-name, --family-name or --attribute");
  const store = await ctx.store();
  const user = await find_user(store, username);
  const now = Math.floor(Date.now() / 1000);
  try {
    // Checked before anything is written: a bad value changes nothing.
    const values = parse_attribute_assignments(flags.attribute, await store.list_attribute_definitions());
    const updated = Object.keys(profile).length === 0 ? user : (await change_user(store, user, profile, now)).user;
    await set_user_attributes(store, user.id, values, now);
    const attributes = await read_user_attributes(store, user.id);
    await ctx.audit({ type: "user_updated", user_id: user.id, details: { changed: [...Object.keys(profile), ...Object.keys(values).map((key) => `attribute:${key}`)] } });
    ctx.emit({ ...public_user(updated), attributes }, (write) => write(`Updated ${updated.username}.\n`));
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
}

export const update_command = command(UPDATE, update);
