/**
 * `idp users add|list|show|remove|set-password|reset-2fa|passkeys` (update: users_update.ts): end users of the provider.
 * Output never contains the password hash or the TOTP secret (public_user is an allow-list).
 */
import { z } from "zod";
import { hash_password } from "../platform/passwords.ts";
import type { Address, Store, UserRow } from "../store/types.ts";
import { must, type CliContext } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import { format_time, write_record, write_table } from "./output.ts";
import { web_url_problem } from "../oidc/clients/redirect_uris.ts";
import { end_user_sessions } from "../oidc/signin/sessions.ts";
import { AdminError } from "../oidc/admin/errors.ts";
import { EMAIL, PHONE, checked_username, create_user_with_password, public_user, reset_second_factors } from "../oidc/admin/users.ts";
import { FORCE, lockout_note } from "./lockout.ts";
import { passkeys_commands } from "./passkeys.ts";
import { command, type ArgsOf, type Command, type CommandGroup, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { check_password_policy, type PasswordOwner } from "../oidc/accounts/password_policy.ts";
import { void_reset_links } from "../oidc/accounts/password_reset.ts";
import { ending_sessions } from "./logout.ts";
import { read_user_attributes } from "../oidc/attributes/values.ts";

const AddressSchema = z.strictObject({
  formatted: z.string().optional(),
  street_address: z.string().optional(),
  locality: z.string().optional(),
  region: z.string().optional(),
  postal_code: z.string().optional(),
  country: z.string().optional(),
});

// What the CLI shows of a user: the admin rules' allow-list (no password hash, no TOTP secret).
export { public_user, type PublicUser } from "../oidc/admin/users.ts";

/** An admin rule's refusal as the CLI's (exit 1). */
async function as_cli<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
}

/** Finds a user by username (case-insensitive) or by id; exit 1 when there is none. */
export async function find_user(store: Store, username_or_id: string): Promise<UserRow> {
  const user = (await store.get_user_by_username(username_or_id)) ?? (await store.get_user_by_id(username_or_id));
  return must(user, `no user "${username_or_id}"`);
}

/** The password on stdin, checked against the password policy for its owner (oidc/accounts/password_policy.ts). */
async function read_password(ctx: CliContext, given: boolean, command: string, owner: PasswordOwner): Promise<string> {
  if (!given) throw new UsageError(`${command} needs --password-stdin (the password is read from standard input)`);
  const password = await ctx.read_stdin();
  if (password.length === 0) throw new CliError("the password on standard input is empty");
  const refused = check_password_policy(password, owner, ctx.config().passwords);
  if (refused !== null) throw new CliError(`the password on standard input is refused: ${refused}`);
  return password;
}

function parse_address(json: string | undefined): Address | null {
  if (json === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new CliError("--address-json is not valid JSON");
  }
  const parsed = AddressSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(`--address-json: ${issue?.path.join(".") || "address"}: ${issue?.message ?? "invalid"} (members: ${Object.keys(AddressSchema.shape).join(", ")})`);
  }
  return parsed.data;
}

function optional_text(name: string, value: string | undefined, pattern?: RegExp): string | null {
  if (value === undefined) return null;
  if (value.trim() === "") throw new CliError(`--${name} must not be empty`);
  if (pattern && !pattern.test(value)) throw new CliError(`--${name} "${value}" is not valid`);
  return value;
}

/** `--password-stdin`, of add and set-password. */
const PASSWORD_STDIN = { type: "boolean", required: true, help: "read the password from standard input; one trailing newline is removed" } as const;

const ADD = {
  summary: "create an active user with a password",
  positionals: ["username"],
  options: {
    password_stdin: PASSWORD_STDIN,
    email: { type: "string", value: "E", help: "e-mail address" },
    email_verified: { type: "boolean", help: "the e-mail address is verified (needs --email)" },
    name: { type: "string", value: "N", help: "full name" },
    given_name: { type: "string", value: "G", help: "given name" },
    family_name: { type: "string", value: "F", help: "family name" },
    picture: { type: "string", value: "URL", help: "profile picture (an http or https URL)" },
    phone: { type: "string", value: "P", help: "phone number" },
    phone_verified: { type: "boolean", help: "the phone number is verified (needs --phone)" },
    address_json: {
      type: "string",
      value: "JSON",
      help: `postal address, an OIDC address object with the members ${Object.keys(AddressSchema.shape).join(", ")}, e.g. '{"locality":"Springfield","country":"US"}'`,
    },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function add(ctx: CliContext, { flags, positionals }: ArgsOf<typeof ADD>): Promise<void> {
  const [typed] = positionals as [string];
  const checked = checked_username(typed);
  if ("problem" in checked) throw new CliError(checked.problem);
  const { username } = checked;
  const email = optional_text("email", flags.email, EMAIL);
  if (flags.email_verified && !email) throw new UsageError("--email-verified needs --email");
  const phone = optional_text("phone", flags.phone, PHONE);
  if (flags.phone_verified && !phone) throw new UsageError("--phone-verified needs --phone");
  const picture = optional_text("picture", flags.picture);
  const picture_problem = picture && web_url_problem(picture);
  if (picture_problem) throw new CliError(`--picture "${picture}" ${picture_problem}`);
  const address = parse_address(flags.address_json);

  const password = await read_password(ctx, flags.password_stdin, "users add", { username, email });
  const store = await ctx.store();
  if (await store.get_user_by_username(username)) throw new CliError(`username "${username}" is already taken`);
  const user = await as_cli(
    create_user_with_password(
      store,
      ctx.config(),
      {
        username,
        email,
        email_verified: flags.email_verified,
        name: optional_text("name", flags.name),
        given_name: optional_text("given-name", flags.given_name),
        family_name: optional_text("family-name", flags.family_name),
        picture,
        phone_number: phone,
        phone_number_verified: flags.phone_verified,
        address,
      },
      password,
    ),
  );
  await ctx.audit({ type: "user_created", user_id: user.id, details: { username: user.username } });
  ctx.emit(public_user(user), (write) => write(`Created user ${user.username} (id ${user.id}).\n`));
}

const LIST = { summary: "list the users with their status (active, unverified, invited or disabled)" } as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext): Promise<void> {
  const users = await (await ctx.store()).list_users();
  ctx.emit(users.map(public_user), (write) => {
    if (users.length === 0) return write("No users.\n");
    write_table(
      write,
      ["username", "id", "status", "email", "name", "created"],
      users.map((u) => [u.username, u.id, u.status, u.email, u.name, format_time(u.created_at)]),
    );
  });
}

const SHOW = {
  summary: "show a user, with their status and groups (never the password hash or the TOTP secret)",
  positionals: ["username"],
} as const satisfies CommandSpec<OptionSpecs>;

async function show(ctx: CliContext, { positionals }: ArgsOf<typeof SHOW>): Promise<void> {
  const [username] = positionals as [string];
  const store = await ctx.store();
  const found = await find_user(store, username);
  // The names of the user's groups (idp groups), released with the scope groups, and their
  // custom attributes (idp attributes), released under each one's scope.
  const user = { ...public_user(found), groups: await store.list_user_groups(found.id), attributes: await read_user_attributes(store, found.id) };
  ctx.emit(user, (write) =>
    write_record(write, {
      ...user,
      totp_enabled_at: format_time(user.totp_enabled_at),
      created_at: format_time(user.created_at),
      updated_at: format_time(user.updated_at),
    }),
  );
}

const REMOVE = {
  summary: "remove a user (the last active administrator only with --force)",
  positionals: ["username"],
  options: { force: FORCE },
} as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { flags, positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [username] = positionals as [string];
  const store = await ctx.store();
  const user = await find_user(store, username);
  const forced = await lockout_note(ctx, store, user, "delete", flags.force);
  if (!(await ending_sessions(ctx, user.id, () => store.delete_user(user.id)))) throw new CliError(`no user "${username}"`);
  await ctx.audit({ type: "user_deleted", user_id: user.id, details: { username: user.username, ...(forced !== null && { forced_last_admin: true }) } });
  ctx.emit({ removed: true, id: user.id, username: user.username, ...(forced !== null && { forced_last_admin: true }) }, (write) => {
    write(`Removed user ${user.username}.\n`);
    if (forced !== null) write(`${forced}\n`);
  });
}

const SET_PASSWORD = {
  summary: "set a user's password; ends their sessions, revokes every token of theirs (offline ones included) and voids their reset links",
  positionals: ["username"],
  options: { password_stdin: PASSWORD_STDIN },
} as const satisfies CommandSpec<OptionSpecs>;

async function set_password(ctx: CliContext, { flags, positionals }: ArgsOf<typeof SET_PASSWORD>): Promise<void> {
  const [username] = positionals as [string];
  const store = await ctx.store();
  const user = await find_user(store, username);
  const password = await read_password(ctx, flags.password_stdin, "users set-password", { username: user.username, email: user.email });
  const password_hash = await hash_password(password, ctx.config().argon2);
  await store.update_user(user.id, { password_hash });
  // Reset links mailed before the change no longer work (oidc/accounts/password_reset.ts).
  await void_reset_links(store, user.id);
  // A password change is often the answer to a compromise: whoever held the old password loses access now.
  const { sessions_ended, tokens_revoked } = await ending_sessions(ctx, user.id, () => end_user_sessions(store, user.id, Math.floor(Date.now() / 1000)));
  await ctx.audit({ type: "user_password_changed", user_id: user.id, details: { sessions_ended, tokens_revoked } });
  ctx.emit({ id: user.id, username: user.username, sessions_ended, tokens_revoked }, (write) =>
    write(`Changed the password of ${user.username}; ended ${sessions_ended} session(s), revoked ${tokens_revoked} token(s).\n`),
  );
}

const RESET_2FA = {
  summary: "remove a user's second factors (the authenticator app, the recovery codes, every passkey), end their sessions and revoke their tokens",
  positionals: ["username"],
} as const satisfies CommandSpec<OptionSpecs>;

/**
 * For a user who lost their authenticator app, recovery codes or passkeys (or whose account was
 * taken over and given someone else's app or passkey): removes the TOTP secret, the recovery
 * codes and the passkeys, and ends the sessions (oidc/admin/users.ts reset_second_factors).
 */
async function reset_2fa(ctx: CliContext, { positionals }: ArgsOf<typeof RESET_2FA>): Promise<void> {
  const [username] = positionals as [string];
  const store = await ctx.store();
  const user = await find_user(store, username);
  const { totp_removed, passkeys_removed, sessions_ended, tokens_revoked } = await as_cli(
    ending_sessions(ctx, user.id, () => reset_second_factors(store, user, Math.floor(Date.now() / 1000))),
  );
  await ctx.audit({ type: "two_factor_removed", user_id: user.id, details: { totp_removed, passkeys_removed, sessions_ended, tokens_revoked } });
  const removed = [totp_removed ? "two-step verification and the recovery codes" : null, passkeys_removed > 0 ? `${passkeys_removed} passkey(s)` : null]
    .filter((part) => part !== null)
    .join(" and ");
  ctx.emit({ id: user.id, username: user.username, totp_enabled: false, totp_removed, passkeys_removed, sessions_ended, tokens_revoked }, (write) =>
    write(`Removed ${removed} of ${user.username}; ended ${sessions_ended} session(s), revoked ${tokens_revoked} token(s).\n`),
  );
}

/** The sub-commands, in the order the help lists them (commands.ts adds invite and send-reset). */
export const users_commands: Record<string, Command | CommandGroup> = {
  add: command(ADD, add),
  list: command(LIST, list),
  show: command(SHOW, show),
  remove: command(REMOVE, remove),
  "set-password": command(SET_PASSWORD, set_password),
  "reset-2fa": command(RESET_2FA, reset_2fa),
  passkeys: passkeys_commands,
};
