/**
 * `idp users passkeys list <username>` and `idp users passkeys remove <username> <id>`: a user's
 * passkeys (WebAuthn credentials). Removing one is the operator's answer to a lost or stolen
 * device: the passkey stops signing in, and the user's sessions end (the device may hold one).
 * The last way to sign in of a user without a password is only removed with --force.
 */
import type { PasskeyRow, Store, UserRow } from "../store/types.ts";
import { end_user_sessions } from "../oidc/signin/sessions.ts";
import { expect_positionals, parse_args } from "./args.ts";
import { must, type CliContext, type SubCommand } from "./context.ts";
import { CliError, UsageError } from "./errors.ts";
import { format_time, write_table } from "./output.ts";

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

async function list(ctx: CliContext, argv: string[]): Promise<void> {
  const { positionals } = parse_args(argv, {});
  const [username] = expect_positionals(positionals, ["username"]) as [string];
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

async function remove(ctx: CliContext, argv: string[]): Promise<void> {
  const { flags, positionals } = parse_args(argv, { force: { type: "boolean" } });
  const [username, id] = expect_positionals(positionals, ["username", "id"]) as [string, string];
  const store = await ctx.store();
  const user = await find_user(store, username);
  const passkeys = await store.list_passkeys_for_user(user.id);
  if (!passkeys.some((p) => p.id === id)) throw new CliError(`user "${user.username}" has no passkey "${id}" (see idp users passkeys list ${user.username})`);
  const keep_last = user.password_hash === "" && !flags.force;
  if (!(await store.delete_passkey(user.id, id, { keep_last }))) {
    throw new CliError(`this is the last way ${user.username} can sign in (no password): give them a password first (idp users set-password), or pass --force`);
  }
  const { sessions_ended, tokens_revoked } = await end_user_sessions(store, user.id, Math.floor(Date.now() / 1000));
  await ctx.audit({ type: "passkey_removed", user_id: user.id, details: { passkey_id: id, sessions_ended, tokens_revoked } });
  ctx.emit({ removed: true, id, username: user.username, sessions_ended, tokens_revoked }, (write) =>
    write(`Removed passkey ${id} of ${user.username}; ended ${sessions_ended} session(s), revoked ${tokens_revoked} token(s).\n`),
  );
}

const COMMANDS: Record<string, SubCommand> = { list, remove };

/** `idp users passkeys <list|remove> ...` */
export const passkeys_command: SubCommand = async (ctx, argv) => {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub.startsWith("-")) throw new UsageError(`missing users passkeys command (${Object.keys(COMMANDS).join(", ")})`);
  const run = Object.hasOwn(COMMANDS, sub) ? COMMANDS[sub] : undefined;
  if (run === undefined) throw new UsageError(`unknown users passkeys command "${sub}"`);
  return run(ctx, rest);
};
