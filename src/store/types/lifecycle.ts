/** Store types: Lifecycle. The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

export type PurgeCounts = {
  codes: number;
  tokens: number;
  sessions: number;
  interactions: number;
  jtis: number;
  counters: number;
  initial_access_tokens: number;
  user_tokens: number;
  webauthn_challenges: number;
  /** Pending upstream sign-ins never completed (federation). */
  upstream_states: number;
  /** Pushed authorization requests (RFC 9126) past their expiry. */
  pushed_requests: number;
  /** Device authorizations (RFC 8628) past their expiry, whatever became of them. */
  device_authorizations: number;
  /** Outbox messages sent (or failed) long enough ago (purge.ts). */
  mail: number;
  /** Webhook deliveries sent (or failed) long enough ago, as mail (purge.ts). */
  webhook_deliveries: number;
  /** Records of revoked grants and families (migration 022) with no token left, a day on (purge.ts). */
  revoked_grants: number;
};

export type MigrationResult = {
  /** Versions this call applied (empty when already up to date). */
  applied: number[];
  /** The schema version after the call. */
  version: number;
};

/** Awaited between two purge batches, with the milliseconds the last one took. */
export type PurgePause = (batch_ms: number) => Promise<void>;

export interface LifecycleStore {
  readonly kind: "sqlite" | "postgres";
  /** Applies pending migrations; safe to call any number of times, from several instances. */
  migrate(): Promise<MigrationResult>;
  /**
   * Deletes expired rows in batches of at most `batch_size` (default 1000), each its own short
   * transaction, smaller while batches take long (purge.ts purge_in_batches), so locks stay
   * short. Between two batches of a table it awaits `pause` with the milliseconds the last batch
   * took (the server paces itself with it, app/purge.ts); without one it yields one event-loop
   * turn, so requests of this process are never held up for more than a batch.
   */
  purge_expired(now: UnixSeconds, batch_size?: number, pause?: PurgePause): Promise<PurgeCounts>;
  /**
   * Takes the run of the background job `name` (a job one instance runs for all, such as the
   * scheduled backup) when it last started at or before `now - interval_seconds`, or never: true
   * when this call took it (and recorded `now` as its start), false when it is not due or another
   * instance took it first. One conditional write, so of instances asking together one wins.
   */
  claim_job(name: string, now: UnixSeconds, interval_seconds: number): Promise<boolean>;
  /** Readiness: resolves when the database answers, raises StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
