/**
 * Accounts never completed, deleted by the background purge (app/purge.ts) so that their
 * usernames (and addresses) are not held forever: sign-ups that never verified their address
 * (`unverified`) `signup.unverified_account_days` after they were made, with no live
 * verification link; invitations never accepted (`invited`) the same number of days after
 * their last invitation link expired. Each deletion is audited (`user_deleted`, its reason).
 * IDP_UNVERIFIED_ACCOUNT_DAYS=0 keeps them.
 */
import { record_event } from "../audit.ts";
import type { Provider } from "../provider.ts";

const DAY_SECONDS = 24 * 3600;

/** Deletes the stale accounts in batches of `batch`; returns how many went. */
export async function delete_stale_accounts(idp: Provider, batch: number): Promise<number> {
  const days = idp.config.signup.unverified_account_days;
  if (days === 0) return 0;
  const now = idp.now();
  const before = now - days * DAY_SECONDS;
  let total = 0;
  for (;;) {
    const deleted = await idp.store.delete_stale_users(before, now, batch);
    for (const user of deleted) {
      await record_event(idp, {
        type: "user_deleted",
        outcome: "success",
        user_id: user.id,
        details: { username: user.username, reason: user.status === "invited" ? "invitation_not_accepted" : "email_not_verified", days },
      });
    }
    total += deleted.length;
    if (deleted.length < batch) return total;
  }
}
