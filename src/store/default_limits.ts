/** The sizes the store uses when a caller gives none: listing limits and the purge batch. */

/** Rows one purge batch deletes (purge_expired: at most, purge.ts sizes the batches; purge_audit_events). */
export const DEFAULT_PURGE_BATCH = 1000;

/** Audit listings without a limit show this many. */
export const DEFAULT_AUDIT_LIMIT = 100;

/** Outbox listings without a limit show this many. */
export const DEFAULT_MAIL_LIST_LIMIT = 100;
