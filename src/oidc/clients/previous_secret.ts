/**
 * A client's previous secret: the one a rotation with a grace period replaced
 * (oidc/admin/clients.ts `rotate_client_secret`). It authenticates the client
 * (authentication.ts) until `previous_secret_expires_at`, and never after.
 */
import type { ClientRow, UnixSeconds } from "../../store/types.ts";

/** The previous secret's hash while its grace period lasts, else null. */
export function previous_secret_live(client: ClientRow, now: UnixSeconds): string | null {
  const expires = client.previous_secret_expires_at;
  return client.previous_secret_hash !== null && expires !== null && expires > now ? client.previous_secret_hash : null;
}
