/**
 * The notice mailed when an upstream account becomes a way into a local one (linked from the
 * account page, or automatically by its verified address). A linked identity outlives a password
 * reset and "sign out everywhere" (they end sessions, not ways in), so its owner is told at once.
 */
import type { Provider } from "../provider.ts";
import type { UpstreamRow, UserRow } from "../../store/types.ts";

export async function send_link_notice(idp: Provider, user: UserRow, upstream: UpstreamRow, upstream_email: string | null): Promise<void> {
  if (!idp.mail.enabled || user.email === null || user.email === "") return;
  await idp.mail.send({ to: user.email, template: "identity_linked", data: { name: user.name, upstream: upstream.display_name, upstream_email } });
}
