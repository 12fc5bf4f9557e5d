/** What purge_expired deletes, table by table, for both adapters. `:now` is the purge time. */
import type { PurgeCounts, PurgePause } from "./types.ts";

/** How long the outbox keeps a sent message, and a failed one past its give-up time (seconds). */
export const MAIL_KEEP_SENT_SECONDS = 7 * 24 * 3600;
export const MAIL_KEEP_FAILED_SECONDS = 30 * 24 * 3600;

/**
 * How long a revoked grant is recorded at least (seconds, migration 022): far longer than a token
 * request takes between consuming a code or refresh token and inserting its tokens.
 */
export const REVOKED_GRANT_KEEP_SECONDS = 24 * 3600;

/** How long an expired invitation link is kept (seconds): longer than IDP_UNVERIFIED_ACCOUNT_DAYS may be. */
export const INVITATION_LINK_KEEP_SECONDS = 366 * 24 * 3600;

export type PurgeTarget = { count: keyof PurgeCounts; table: string; expired: string };

export const purge_targets: readonly PurgeTarget[] = [
  { count: "codes", table: "codes", expired: "expires_at <= :now" },
  // Rotated refresh tokens stay until they expire: reuse of one must still be recognised.
  { count: "tokens", table: "tokens", expired: "expires_at <= :now" },
  { count: "sessions", table: "sessions", expired: "expires_at <= :now" },
  { count: "interactions", table: "interactions", expired: "expires_at <= :now" },
  { count: "jtis", table: "used_jtis", expired: "expires_at <= :now" },
  { count: "counters", table: "counters", expired: "reset_at <= :now" },
  { count: "initial_access_tokens", table: "initial_access_tokens", expired: "expires_at IS NOT NULL AND expires_at <= :now" },
  // Expired invitation links are kept a year past their expiry: an invited account is deleted
  // IDP_UNVERIFIED_ACCOUNT_DAYS (at most 365) after its last link expired (delete_stale_users).
  // An expired link never works (its lookups require expires_at > now).
  {
    count: "user_tokens",
    table: "user_tokens",
    expired: `(purpose <> 'invitation' AND expires_at <= :now) OR (purpose = 'invitation' AND expires_at + ${INVITATION_LINK_KEEP_SECONDS} <= :now)`,
  },
  { count: "webauthn_challenges", table: "webauthn_challenges", expired: "expires_at <= :now" },
  // A revoked grant stays recorded while any token of it is left (tokens go at their expiry,
  // earlier in this list): a token a request inserted while the revocation ran may carry no
  // revoked_at of its own, and is revoked by this record alone (migration 022).
  {
    count: "revoked_grants",
    table: "revoked_grants",
    expired: `revoked_at <= :now - ${REVOKED_GRANT_KEEP_SECONDS}
      AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.grant_id = revoked_grants.grant_id)
      AND NOT EXISTS (SELECT 1 FROM tokens t WHERE t.family_id = revoked_grants.grant_id)`,
  },
  { count: "pushed_requests", table: "pushed_requests", expired: "expires_at <= :now" },
  { count: "device_authorizations", table: "device_authorizations", expired: "expires_at <= :now" },
  { count: "upstream_states", table: "upstream_states", expired: "expires_at <= :now" },
  // Sent mail is kept a week (`idp mail list` shows what left), failed mail a month (to retry it).
  {
    count: "mail",
    table: "mail_outbox",
    expired: `(status = 'sent' AND sent_at + ${MAIL_KEEP_SENT_SECONDS} <= :now) OR (status = 'failed' AND give_up_at + ${MAIL_KEEP_FAILED_SECONDS} <= :now)`,
  },
  // Webhook deliveries are kept as long as mail (`idp webhooks deliveries` shows what left).
  {
    count: "webhook_deliveries",
    table: "webhook_deliveries",
    expired: `(status = 'sent' AND sent_at + ${MAIL_KEEP_SENT_SECONDS} <= :now) OR (status = 'failed' AND give_up_at + ${MAIL_KEEP_FAILED_SECONDS} <= :now)`,
  },
];

/**
 * How long one purge batch should take (ms). A batch is a write transaction: while it runs it
 * holds SQLite's write lock and, on SQLite, this process's event loop. Batches start at the
 * caller's size; one that takes more than twice this halves the next (down to MIN_PURGE_BATCH),
 * one that takes less than half of it doubles the next (up to the caller's size). Deleting a row
 * costs from a few µs (a small table) to ~300 µs (a 1 GB SQLite file with eight indexes), so a
 * fixed count cannot bound the time (bench/RESULTS.md, "Growth of data").
 */
export const PURGE_BATCH_TARGET_MS = 50;
export const MIN_PURGE_BATCH = 10;

/** The size of the next batch after one of `size` rows took `ms`; never above `max`. */
export function next_batch_size(size: number, ms: number, max: number): number {
  if (ms > 2 * PURGE_BATCH_TARGET_MS) return Math.max(Math.min(MIN_PURGE_BATCH, max), Math.floor(size / 2));
  if (ms < PURGE_BATCH_TARGET_MS / 2) return Math.min(max, size * 2);
  return size;
}

/** The pause between two batches when the caller gives none: one event-loop turn. */
export const next_turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * One table's purge, for both adapters: `delete_batch(limit)` deletes up to `limit` expired rows
 * in one transaction and says how many. Batches go on until one deletes fewer than asked, each
 * sized by next_batch_size from the time the last took, with `pause` awaited between two.
 * Returns the rows deleted.
 */
export async function purge_in_batches(
  max: number,
  pause: PurgePause,
  delete_batch: (limit: number) => Promise<number>,
  clock: () => number = () => performance.now(),
): Promise<number> {
  let total = 0;
  for (let size = max; ; ) {
    const started = clock();
    const deleted = await delete_batch(size);
    total += deleted;
    if (deleted < size) return total;
    const ms = clock() - started;
    size = next_batch_size(size, ms, max);
    await pause(ms);
  }
}

export function empty_purge_counts(): PurgeCounts {
  return {
    codes: 0,
    tokens: 0,
    sessions: 0,
    interactions: 0,
    jtis: 0,
    counters: 0,
    initial_access_tokens: 0,
    user_tokens: 0,
    webauthn_challenges: 0,
    upstream_states: 0,
    pushed_requests: 0,
    device_authorizations: 0,
    mail: 0,
    webhook_deliveries: 0,
    revoked_grants: 0,
  };
}
