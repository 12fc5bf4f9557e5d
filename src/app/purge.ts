/**
 * The background purge of expired rows (codes, tokens, sessions, interactions, used jtis,
 * rate-limit counters, initial access tokens) and of accounts never completed
 * (oidc/account/stale_accounts.ts): every `interval_seconds`, each instance asks the
 * store to delete what expired before the provider's now. The store deletes in bounded batches
 * (a short lock each; PostgreSQL instances purging together skip each other's rows), so running
 * it on every instance is safe. One run at a time; `stop()` waits for a running one, so the
 * store can be closed right after.
 */
import { delete_stale_accounts } from "../oidc/account/stale_accounts.ts";
import type { Provider } from "../oidc/provider.ts";
import { DEFAULT_PURGE_BATCH } from "../store/defaults.ts";
import type { PurgeCounts } from "../store/types.ts";

export type PurgeOptions = { interval_seconds: number; batch_size?: number };

export type PurgeLoop = {
  /** Runs one purge now (or waits for the running one); null when it failed (logged). */
  run(): Promise<PurgeCounts | null>;
  /** Clears the timer and waits for a running purge. */
  stop(): Promise<void>;
};

export function start_purge(idp: Provider, options: PurgeOptions): PurgeLoop {
  const batch = options.batch_size ?? DEFAULT_PURGE_BATCH;
  let running: Promise<PurgeCounts | null> | null = null;
  let stopped = false;

  const run = (): Promise<PurgeCounts | null> => {
    running ??= (async () => {
      try {
        const counts = await idp.store.purge_expired(idp.now(), batch);
        const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
        if (total > 0) idp.log({ level: "info", msg: "purged expired rows", ...counts });
        // Accounts never completed (signup.unverified_account_days): audited one by one.
        const stale = await delete_stale_accounts(idp, batch);
        if (stale > 0) idp.log({ level: "info", msg: "deleted accounts never completed", users: stale });
        return counts;
      } catch (error) {
        // The database may be away for a while: the next interval tries again.
        idp.log({ level: "error", msg: "purge failed", error: error instanceof Error ? error.message : String(error) });
        return null;
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const timer = setInterval(() => {
    if (!stopped) void run();
  }, options.interval_seconds * 1000);
  // A pending purge never keeps the process alive on its own.
  timer.unref?.();

  return {
    run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running;
    },
  };
}
