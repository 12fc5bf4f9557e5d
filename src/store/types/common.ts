/** Value types shared by every store area (see ../types.ts for the rules adapters keep). */

/** Integer unix time in seconds. */
export type UnixSeconds = number;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * Compare-and-set for a read-modify-write (migration 020): with `if_version`, the update or
 * delete happens only while the row's `version` is still this one (the version the caller read
 * and checked, e.g. against an If-Match, RFC 9110 §13.1.1); otherwise nothing is written and the
 * method answers as for a missing row (null, false), and the caller reads again to tell which.
 * The comparison and the write are one statement or one transaction: of any number of
 * concurrent calls with the same version, at most one writes. Without it the write is unconditional.
 */
export type IfVersion = { if_version?: number };
