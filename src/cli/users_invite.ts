/**
 * `idp users invite EMAIL [--name NAME] [--username U]`: creates an invited account (no
 * password yet) and queues the invitation mail (oidc/accounts/invitations.ts); a running server
 * delivers it. Inviting the same address again sends a new link and voids the older one.
 */
import { create_provider } from "../app/provider.ts";
import { InvitationRefused, invite } from "../oidc/accounts/invitations.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time } from "./output.ts";
import { command, type ArgsOf, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { public_user } from "./users.ts";

const INVITE = {
  summary: "create an invited account (no password) and mail the address a link to choose a username and password",
  positionals: ["email"],
  options: {
    name: { type: "string", value: "N", help: "full name" },
    username: { type: "string", value: "U", help: "the username the form proposes (default: from the address)" },
  },
} as const satisfies CommandSpec<OptionSpecs>;

async function invite_user(ctx: CliContext, { flags, positionals }: ArgsOf<typeof INVITE>): Promise<void> {
  const [email] = positionals as [string];
  const config = ctx.config();
  if (config.signup.mode === "off") {
    throw new CliError("invitations are off (IDP_SIGNUP=off): set IDP_SIGNUP=invite (or open) on the server, so the invitation link has a page to open");
  }
  // The rules need the provider's mail (the outbox) and clock; a running server's worker sends it.
  const idp = await create_provider(config, { store: await ctx.store(), log: () => {} });
  let result;
  try {
    result = await invite(idp, { email, name: flags.name ?? null, username: flags.username ?? null }, { via: "cli" });
  } catch (error) {
    // The message names the argument: "email: …", "--username: …", "--name: …".
    if (error instanceof InvitationRefused) throw new CliError(error.field === "username" || error.field === "name" ? `--${error.message}` : error.message);
    throw error;
  }
  const { user, resent, expires_at } = result;
  ctx.emit({ ...public_user(user), invitation: { resent, expires_at } }, (write) =>
    write(
      `${resent ? "Sent a new invitation (the previous link no longer works)" : "Invited"} ${user.email} as ${user.username} (id ${user.id}); the link expires ${format_time(expires_at)}.\n`,
    ),
  );
}

/** `idp users invite` (wired in commands.ts next to the other users commands). */
export const invite_command = command(INVITE, invite_user);
