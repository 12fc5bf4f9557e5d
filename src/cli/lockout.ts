/**
 * The no-lockout rule (oidc/admin/lockout.ts) on the command line, the break-glass path: a
 * command that would disable, delete or remove from the admin group the last active
 * administrator is refused unless given `--force`, and then says what it did.
 */
import { AdminError } from "../oidc/admin/errors.ts";
import { check_lockout, type LockoutChange } from "../oidc/admin/lockout.ts";
import type { Store, UserRow } from "../store/types.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";

/** `--force`, of the commands that can take away the last administrator. */
export const FORCE = {
  type: "boolean",
  help: "act even on the last active administrator (nobody can use the admin console until another is made)",
} as const;

/**
 * Null when `change` of `user` leaves an administrator; with `force`, the sentence that says the
 * last one went (printed after the command's own line); without it, a CliError saying why.
 */
export async function lockout_note(ctx: CliContext, store: Store, user: UserRow, change: LockoutChange, force: boolean): Promise<string | null> {
  let forced: "forced" | null;
  try {
    forced = await check_lockout(store, ctx.config().admin_console.group, user, change, { force });
  } catch (error) {
    if (error instanceof AdminError) throw new CliError(`${error.message.replace(/\.$/, "")} (idp admin grant NAME), or add --force to do it anyway.`);
    throw error;
  }
  if (forced === null) return null;
  return `${user.username} was the last active administrator: nobody can use the admin console until idp admin grant NAME makes another.`;
}
