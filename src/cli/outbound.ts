/**
 * The warnings of oidc/outbound/preflight.ts for what a command just registered: a URL the
 * provider will call but the outbound fence would refuse (http without IDP_OUTBOUND_ALLOW_HTTP, a
 * non-public address outside IDP_OUTBOUND_ALLOW), one `warning:` line each on stderr (stdout
 * keeps the command's output, JSON included). The command itself succeeds.
 */
import { outbound_warnings, type CalledUrl } from "../oidc/outbound/preflight.ts";
import type { CliContext } from "./context.ts";

export async function warn_outbound(ctx: CliContext, urls: readonly CalledUrl[]): Promise<void> {
  for (const warning of await outbound_warnings(urls, ctx.config().outbound)) ctx.io.stderr(`warning: ${warning}\n`);
}
