/**
 * The outboxes' retry schedule (mail: app/mail/worker.ts; webhooks: oidc/webhooks/deliver.ts):
 * exponential backoff from `retry_base_seconds`, doubling after each failed attempt, at most
 * `retry_max_seconds` between two, until the message's give-up time.
 */
export type Backoff = {
  /** The wait after the first failed attempt (seconds); it doubles after each one. */
  retry_base_seconds: number;
  /** The longest wait between attempts (seconds). */
  retry_max_seconds: number;
};

/** When to try again after `attempts` failed attempts, or null when the message should end failed. */
export function next_attempt(attempts: number, now: number, give_up_at: number, options: Backoff): number | null {
  const wait = Math.min(options.retry_base_seconds * 2 ** Math.max(0, attempts - 1), options.retry_max_seconds);
  const at = now + Math.max(1, Math.round(wait));
  return at > give_up_at ? null : at;
}
