/**
 * The background purge of expired rows (codes, tokens, sessions, interactions, used jtis,
 * rate-limit counters, initial access tokens), of accounts never completed
 * (oidc/accounts/stale_accounts.ts) and of clients registered anonymously and never used
 * (oidc/registration/unused_clients.ts): every `interval_seconds`, each instance asks the
 * store to delete what expired before the provider's now. The store deletes in bounded batches
 * (a short lock each, ~50 ms: store/purge.ts purge_in_batches; PostgreSQL instances purging
 * together skip each other's rows), so running it on every instance is safe. It paces itself:
 * after each batch it waits as long as the batch took (`purge_pause`), so a backlog of millions
 * of rows takes at most about half of one database connection's time and of this process's,
 * and requests keep their latency (bench/RESULTS.md, "Growth of data"). One run at a time;
 * `stop()` ends a running one after its current batch and waits for it, so the store can be
 * closed right after.
 */
import { delete_stale_accounts } from "../oidc/accounts/stale_accounts.ts";
import { delete_unused_clients } from "../oidc/registration/unused_clients.ts";
import type { Provider } from "../oidc/provider.ts";
import { DEFAULT_PURGE_BATCH } from "../store/default_limits.ts";
import { purge_targets } from "../store/purge.ts";
import type { PurgeCounts } from "../store/types.ts";

export type PurgeOptions = { interval_seconds: number; batch_size?: number };

/** Waits as long as the last batch took (at least 1 ms): the purge's duty cycle stays under half. */
const purge_pause = (batch_ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(1, batch_ms)));

/** Thrown between two batches once `stop()` was called: a long purge does not hold up a shutdown. */
class PurgeStopped extends Error {}

export type PurgeLoop = {
  /** Runs one purge now (or waits for the running one); null when it failed (logged). */
  run(): Promise<PurgeCounts | null>;
  /** Clears the timer; a running purge stops after its current batch, and this waits for it. */
  stop(): Promise<void>;
};

export function start_purge(idp: Provider, options: PurgeOptions): PurgeLoop {
  const batch = options.batch_size ?? DEFAULT_PURGE_BATCH;
  let running: Promise<PurgeCounts | null> | null = null;
  let stopped = false;

  const run = (): Promise<PurgeCounts | null> => {
    running ??= (async () => {
      try {
        // Each pause follows a full batch; every table also ends with one short of full.
        let pauses = 0;
        const pause = async (batch_ms: number) => {
          pauses++;
          if (stopped) throw new PurgeStopped();
          await purge_pause(batch_ms);
          if (stopped) throw new PurgeStopped();
        };
        const counts = await idp.store.purge_expired(idp.now(), batch, pause);
        const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
        if (total > 0) idp.log({ level: "info", msg: "purged expired rows", ...counts, batches: pauses + purge_targets.length });
        // Accounts never completed (signup.unverified_account_days): audited one by one.
        const stale = await delete_stale_accounts(idp, batch);
        if (stale > 0) idp.log({ level: "info", msg: "deleted accounts never completed", users: stale });
        // Clients registered anonymously and never used (IDP_REGISTRATION_UNUSED_CLIENT_DAYS): audited one by one.
        const unused = await delete_unused_clients(idp, batch);
        if (unused > 0) idp.log({ level: "info", msg: "deleted clients never used", clients: unused });
        return counts;
      } catch (error) {
        // What it deleted so far stays deleted; the next start goes on.
        if (error instanceof PurgeStopped) {
          idp.log({ level: "info", msg: "purge stopped by shutdown" });
          return null;
        }
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
