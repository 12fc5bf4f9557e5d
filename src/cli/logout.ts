/**
 * Sessions ended from the command line (`idp users set-password|reset-2fa|disable|remove`,
 * `idp users passkeys remove`) tell their clients as the admin API and the console do:
 * back-channel logout (oidc/logout/bulk.ts). The process waits for the deliveries, each within the
 * outbound time limit, since it exits right after; a client that does not answer is logged and
 * does not stop the command.
 */
import { create_provider } from "../app/provider.ts";
import { with_backchannel_logout } from "../oidc/logout/bulk.ts";
import type { CliContext } from "./context.ts";

/** Runs `end`, which ends sessions of `user_id`, and sends their back-channel logout before answering. */
export async function ending_sessions<T>(ctx: CliContext, user_id: string, end: () => Promise<T>): Promise<T> {
  const config = ctx.config();
  // Only what went wrong reaches stderr (a client that did not take its logout token).
  const log = (line: Record<string, unknown>) => void (line.level === "warn" || line.level === "error" ? ctx.io.stderr(`warning: ${JSON.stringify(line)}\n`) : undefined);
  const idp = await create_provider(config, { store: await ctx.store(), log });
  return with_backchannel_logout(idp, user_id, end, undefined, config.outbound.timeout_ms + 1000);
}
