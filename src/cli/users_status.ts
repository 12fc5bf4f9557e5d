/**
 * `idp users enable|disable USER`: an account's status from the server, the break-glass path
 * beside the console and the API, by the same rule (oidc/admin/users.ts `change_user`).
 * Disabling refuses every later sign-in and ends the user's sessions and tokens now; enabling
 * lets them sign in again. Invited and unverified accounts become active through their own link.
 * The last active administrator is disabled only with --force (src/cli/lockout.ts).
 */
import { AdminError } from "../oidc/admin/errors.ts";
import { change_user } from "../oidc/admin/users.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { FORCE, lockout_note } from "./lockout.ts";
import { command, type ArgsOf, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { find_user } from "./users.ts";
import { ending_sessions } from "./logout.ts";

const ENABLE = { summary: "enable a disabled user: they may sign in again", positionals: ["username"] } as const satisfies CommandSpec<OptionSpecs>;

async function enable(ctx: CliContext, { positionals }: ArgsOf<typeof ENABLE>): Promise<void> {
  const [name] = positionals as [string];
  const store = await ctx.store();
  const user = await find_user(store, name);
  if (user.status === "active") {
    ctx.emit({ id: user.id, username: user.username, status: user.status, changed: false }, (write) => write(`${user.username} already is active.\n`));
    return;
  }
  try {
    await change_user(store, user, { status: "active" }, Math.floor(Date.now() / 1000));
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(error.message);
    throw error;
  }
  await ctx.audit({ type: "user_enabled", user_id: user.id, details: { username: user.username } });
  ctx.emit({ id: user.id, username: user.username, status: "active", changed: true }, (write) => write(`Enabled ${user.username}: they may sign in again.\n`));
}

const DISABLE = {
  summary: "disable a user: every later sign-in is refused, their sessions end and their tokens are revoked now (the last active administrator only with --force)",
  positionals: ["username"],
  options: { force: FORCE },
} as const satisfies CommandSpec<OptionSpecs>;

async function disable(ctx: CliContext, { flags, positionals }: ArgsOf<typeof DISABLE>): Promise<void> {
  const [name] = positionals as [string];
  const store = await ctx.store();
  const user = await find_user(store, name);
  if (user.status === "disabled") {
    ctx.emit({ id: user.id, username: user.username, status: user.status, changed: false }, (write) => write(`${user.username} already is disabled.\n`));
    return;
  }
  const forced = await lockout_note(ctx, store, user, "disable", flags.force);
  const { ended } = await ending_sessions(ctx, user.id, () => change_user(store, user, { status: "disabled" }, Math.floor(Date.now() / 1000)));
  const { sessions_ended, tokens_revoked } = ended ?? { sessions_ended: 0, tokens_revoked: 0 };
  await ctx.audit({
    type: "user_disabled",
    user_id: user.id,
    details: { username: user.username, sessions_ended, tokens_revoked, ...(forced !== null && { forced_last_admin: true }) },
  });
  ctx.emit(
    { id: user.id, username: user.username, status: "disabled", changed: true, sessions_ended, tokens_revoked, ...(forced !== null && { forced_last_admin: true }) },
    (write) => {
      write(`Disabled ${user.username}; ended ${sessions_ended} session(s), revoked ${tokens_revoked} token(s).\n`);
      if (forced !== null) write(`${forced}\n`);
    },
  );
}

/** `idp users enable` and `idp users disable` (wired in commands.ts next to the other users commands). */
export const enable_command = command(ENABLE, enable);
export const disable_command = command(DISABLE, disable);
