/**
 * Store types: the mail outbox. `idp.mail.send()` inserts a rendered message; background workers
 * (src/app/mail/worker.ts) claim due messages, deliver them and mark the outcome. The rules every
 * adapter keeps are in ../types.ts.
 */

import type { UnixSeconds } from "./common.ts";

/**
 * `queued`: waiting for its next attempt. `sending`: claimed by a worker until `locked_until`
 * (a worker that died mid-send leaves it claimable again after that). `sent`, `failed`: final
 * (`idp mail retry` puts a failed one back to `queued`).
 */
export type MailStatus = "queued" | "sending" | "sent" | "failed";

export const MAIL_STATUSES: readonly MailStatus[] = ["queued", "sending", "sent", "failed"];

export type MailRow = {
  id: string;
  recipient: string;
  /** The template it was rendered from (oidc/mail.ts), for `idp mail list`. */
  template: string;
  subject: string;
  /** The bodies may hold single-use links: never logged, never listed. */
  text: string;
  html: string;
  status: MailStatus;
  /** Delivery attempts so far; a claim increments it, and it fences the claim's outcome. */
  attempts: number;
  next_attempt_at: UnixSeconds;
  /** While `sending`: when the claim lapses. Null otherwise. */
  locked_until: UnixSeconds | null;
  /** Past this time a failed attempt is final (status `failed`) instead of scheduling another. */
  give_up_at: UnixSeconds;
  last_error: string | null;
  created_at: UnixSeconds;
  sent_at: UnixSeconds | null;
};

/** A row without its bodies: what listings return. */
export type MailSummary = Omit<MailRow, "text" | "html">;

export type NewMail = Pick<MailRow, "recipient" | "template" | "subject" | "text" | "html" | "give_up_at"> &
  Partial<Pick<MailRow, "id" | "created_at" | "next_attempt_at">> & {
    /** Stored `failed` at once with this error, never attempted (a recipient that cannot be delivered to). */
    refused?: string;
  };

export type MailClaim = {
  /** At most this many messages (default 10). */
  limit?: number;
  /** How long the claim holds (seconds): longer than one delivery can take. */
  lease_seconds: number;
  /** Only this message (the CLI's `idp mail test` delivers the one it queued). */
  id?: string;
};

/** The outcome of a failed attempt: another at `retry_at`, or none (`null`: status failed). */
export type MailFailure = { error: string; retry_at: UnixSeconds | null };

export type MailQueue = { waiting: number; next_due: UnixSeconds | null };

export type MailQuery = { status?: MailStatus; limit?: number };

export interface MailStore {
  /** Queues a message (status queued, due at `next_attempt_at`, default now). */
  enqueue_mail(mail: NewMail): Promise<MailRow>;
  /**
   * Atomically claims due messages (queued and due, or sending with a lapsed claim), oldest due
   * first: each becomes `sending` until now + lease and its attempts grow by one. Two workers,
   * on one database or several instances, never claim the same message at once.
   */
  claim_mail(now: UnixSeconds, claim: MailClaim): Promise<MailRow[]>;
  /** Marks a claimed message sent; false when the claim (id and attempt) is no longer held. */
  mark_mail_sent(id: string, attempt: number, now: UnixSeconds): Promise<boolean>;
  /** Records a failed attempt of a claimed message; false when the claim is no longer held. */
  mark_mail_failed(id: string, attempt: number, failure: MailFailure): Promise<boolean>;
  /** A failed message back to the queue, due now, with a new give-up time; false unless it was failed. */
  retry_mail(id: string, now: UnixSeconds, give_up_at: UnixSeconds): Promise<boolean>;
  get_mail(id: string): Promise<MailRow | null>;
  /** Newest first, without bodies; `limit` defaults to 100. */
  list_mail(query?: MailQuery): Promise<MailSummary[]>;
  /** How many messages have each status. */
  count_mail(): Promise<Record<MailStatus, number>>;
  /**
   * The workers' idle check, one read: how many messages wait (queued or sending) and when the
   * next one is due (a queued message's next attempt, or a claim's end), null when none waits.
   */
  mail_queue(): Promise<MailQueue>;
}
