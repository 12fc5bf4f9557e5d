/**
 * `idp users send-reset USER`: an administrator mails a user a password reset link (the same
 * link as "Forgot password?", oidc/accounts/password_reset.ts); a running server delivers it.
 * A newer link voids the older ones; the user's password stays until they use it.
 */
import { create_provider } from "../app/provider.ts";
import { mail_enabled } from "../app/mail/outbox.ts";
import { mail_reset_link, reset_refusal } from "../oidc/accounts/password_reset.ts";
import type { CliContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { format_time } from "./output.ts";
import { command, type ArgsOf, type CommandSpec, type OptionSpecs } from "./spec.ts";
import { find_user } from "./users.ts";

const SEND_RESET = { summary: "mail a user a password reset link", positionals: ["username"] } as const satisfies CommandSpec<OptionSpecs>;

async function send_reset(ctx: CliContext, { positionals }: ArgsOf<typeof SEND_RESET>): Promise<void> {
  const [name] = positionals as [string];
  const config = ctx.config();
  if (!mail_enabled(config)) throw new CliError("mail is off: production mode without IDP_SMTP_URL (set IDP_SMTP_URL and IDP_MAIL_FROM), or use idp users set-password");
  const store = await ctx.store();
  const user = await find_user(store, name);
  const refused = reset_refusal(user);
  if (refused !== null) throw new CliError(refused);
  // The rules need the provider's mail (the outbox) and clock; a running server's worker sends it.
  const idp = await create_provider(config, { store, log: () => {} });
  const { expires_at } = await mail_reset_link(idp, user);
  await ctx.audit({ type: "password_reset_requested", user_id: user.id, details: { username: user.username } });
  ctx.emit({ id: user.id, username: user.username, email: user.email, expires_at }, (write) =>
    write(`Queued a password reset link for ${user.username} to ${user.email}; it expires ${format_time(expires_at)}. Older links no longer work.\n`),
  );
}

/** `idp users send-reset` (wired in commands.ts next to the other users commands). */
export const send_reset_command = command(SEND_RESET, send_reset);
