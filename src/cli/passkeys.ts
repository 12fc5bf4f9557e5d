/**
 * `idp users passkeys list <username>` and `idp users passkeys remove <username> <id>`: a user's
 * passkeys (WebAuthn credentials). Removing one is the operator's answer to a lost or stolen
 * device: the passkey stops signing in, and the user's sessions end (the device may hold one).
 * The last way to sign in of a user without a password is only removed with --force.
 */
import type { PasskeyRow, Store, UserRow } from "../store/types.ts";
import { end_user_sessions } from "../oidc/signin/sessions.ts";
import { must, type CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time, write_table } from "./output.ts";
import { command, group, type ArgsOf, type CommandGroup, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { ending_sessions } from "./logout.ts";

/** The user by username or id, as users.ts finds them (not imported from there: users.ts lists this command). */
async function find_user(store: Store, username_or_id: string): Promise<UserRow> {
  const user = (await store.get_user_by_username(username_or_id)) ?? (await store.get_user_by_id(username_or_id));
  return must(user, `no user "${username_or_id}"`);
}

/** What the CLI shows of a passkey: never its public key. */
export function public_passkey(passkey: PasskeyRow) {
  return {
    id: passkey.id,
    name: passkey.name,
    credential_id: passkey.credential_id,
    synced: passkey.backup_eligible,
    backed_up: passkey.backup_state,
    transports: passkey.transports,
    aaguid: passkey.aaguid,
    counter: passkey.counter,
    created_at: passkey.created_at,
    last_used_at: passkey.last_used_at,
  };
}

const LIST = {
  summary: "list a user's passkeys: id, name, when added and last used, whether synced (never the key)",
  positionals: ["username"],
} as const satisfies CommandSpec<OptionSpecs>;

async function list(ctx: CliContext, { positionals }: ArgsOf<typeof LIST>): Promise<void> {
  const [username] = positionals as [string];
  const store = await ctx.store();
  const user = await find_user(store, username);
  const passkeys = await store.list_passkeys_for_user(user.id);
  ctx.emit(passkeys.map(public_passkey), (write) => {
    if (passkeys.length === 0) return write(`${user.username} has no passkeys.\n`);
    write_table(
      write,
      ["id", "name", "created", "last used", "synced"],
      passkeys.map((p) => [p.id, p.name, format_time(p.created_at), p.last_used_at === null ? "never" : format_time(p.last_used_at), p.backup_eligible ? "yes" : "no"]),
    );
  });
}

const REMOVE = {
  summary: "remove a passkey (a lost or stolen device) and end the user's sessions",
  positionals: ["username", "id"],
  options: { force: { type: "boolean", help: "remove it even when it is the last way in of a user without a password" } },
} as const satisfies CommandSpec<OptionSpecs>;

async function remove(ctx: CliContext, { flags, positionals }: ArgsOf<typeof REMOVE>): Promise<void> {
  const [username, id] = positionals as [string, string];
  const store = await ctx.store();
  const user = await find_user(store, username);
  const passkeys = await store.list_passkeys_for_user(user.id);
  if (!passkeys.some((p) => p.id === id)) throw new CliError(`user "${user.username}" has no passkey "${id}" (see idp users passkeys list ${user.username})`);
  const keep_last = user.password_hash === "" && !flags.force;
  if (!(await store.delete_passkey(user.id, id, { keep_last }))) {
    throw new CliError(`this is the last way ${user.username} can sign in (no password): give them a password first (idp users set-password), or pass --force`);
  }
  const { sessions_ended, tokens_revoked } = await ending_sessions(ctx, user.id, () => end_user_sessions(store, user.id, Math.floor(Date.now() / 1000)));
  await ctx.audit({ type: "passkey_removed", user_id: user.id, details: { passkey_id: id, sessions_ended, tokens_revoked } });
  ctx.emit({ removed: true, id, username: user.username, sessions_ended, tokens_revoked }, (write) =>
    write(`Removed passkey ${id} of ${user.username}; ended ${sessions_ended} session(s), revoked ${tokens_revoked} token(s).\n`),
  );
}

/** `idp users passkeys <list|remove> ...` */
export const passkeys_commands: CommandGroup = group({
  summary: "a user's passkeys",
  commands: { list: command(LIST, list), remove: command(REMOVE, remove) },
});
