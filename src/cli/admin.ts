/**
 * `idp admin grant USER`: break-glass from the server when nobody can use the admin console (the
 * last administrator disabled, deleted or removed with --force, their second factor lost). It
 * enables the account if it is disabled, makes the admin group (IDP_ADMIN_GROUP) if it is
 * missing, adds the user to it, and says what they must still do before the console lets them
 * in: a password or a reset link if they have none, a second factor (oidc/admin/console.ts asks
 * for one in the sign-in), the console itself if it is off.
 */
import { AdminError } from "../oidc/admin/errors.ts";
import { create_group } from "../oidc/admin/groups.ts";
import { change_user } from "../oidc/admin/users.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { command, group, type ArgsOf, type CommandGroup, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { find_user } from "./users.ts";

const GRANT = {
  summary: "make a user an administrator: enable the account, add it to the admin group (made if missing), and say what they must still do",
  positionals: ["username"],
} as const satisfies CommandSpec<OptionSpecs>;

async function grant(ctx: CliContext, { positionals }: ArgsOf<typeof GRANT>): Promise<void> {
  const [name] = positionals as [string];
  const config = ctx.config();
  const store = await ctx.store();
  const user = await find_user(store, name);
  const now = Math.floor(Date.now() / 1000);
  if (user.status === "invited" || user.status === "unverified") {
    throw new CliError(`${user.username} is ${user.status}: the account becomes active when its link is followed; run this again then`);
  }
  const enabled = user.status === "disabled";
  if (enabled) await change_user(store, user, { status: "active" }, now);
  let admins = await store.get_group_by_name(config.admin_console.group);
  const group_created = admins === null;
  if (admins === null) {
    try {
      admins = await create_group(store, config.admin_console.group, null);
    } catch (error) {
      if (error instanceof AdminError) throw new CliError(error.message);
      throw error;
    }
  }
  const added = await store.add_group_member(admins.id, user.id, now);
  await ctx.audit({ type: "admin_granted", user_id: user.id, details: { username: user.username, group: admins.name, enabled, added, group_created } });

  // What still stands between them and the console, in the order they meet it.
  const todo: { code: string; text: string }[] = [];
  if (!config.admin_console.enabled) todo.push({ code: "console_off", text: "the admin console is off: set IDP_ADMIN_CONSOLE=on (or use the admin API and idp)" });
  // Without a password and without a linked sign-in provider, there is no way to sign in at all.
  if (user.password_hash === "" && (await store.list_identities_for_user(user.id)).length === 0)
    todo.push({ code: "password", text: `set a password (idp users set-password ${user.username} --password-stdin) or mail a reset link (idp users send-reset ${user.username})` });
  const second_factor = user.totp_enabled_at !== null || (await store.list_passkeys_for_user(user.id)).length > 0;
  if (!second_factor)
    todo.push({ code: "second_factor", text: `sign in at ${config.issuer}/account and set up two-step verification or a passkey, then sign out and in again with it` });
  else todo.push({ code: "sign_in", text: `sign in at ${config.issuer}/account/login with the second factor` });
  const console_url = `${config.issuer}/admin`;

  ctx.emit(
    { id: user.id, username: user.username, group: admins.name, enabled, added, group_created, console: console_url, still_to_do: todo.map((step) => step.code) },
    (write) => {
      const done = [
        enabled ? "enabled the account" : null,
        group_created ? `made the group ${admins.name}` : null,
        added ? `added them to ${admins.name}` : `they already were in ${admins.name}`,
      ].filter((part) => part !== null);
      write(`${user.username} is an administrator: ${done.join(", ")}.\n`);
      write(`Before they can use ${console_url}:\n`);
      for (const step of todo) write(`  - ${step.text}\n`);
    },
  );
}

/** `idp admin ...` */
export const admin_commands: CommandGroup["commands"] = { grant: command(GRANT, grant) };

export const admin_group = group({
  summary: "break-glass from the server: make someone an administrator again",
  commands: admin_commands,
  notes: `grant is for when nobody can use the admin console: the last administrator was disabled,
deleted or removed from the admin group with --force, or lost their second factor (idp users
reset-2fa). It enables the account, adds it to IDP_ADMIN_GROUP (making the group if it is
missing) and prints what the user must still do: the console wants a sign-in with a second
factor. Invited and unverified accounts are refused: they become active through their own link.`,
});
