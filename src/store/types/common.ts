/** Value types shared by every store area (see ../types.ts for the rules adapters keep). */

/** Integer unix time in seconds. */
export type UnixSeconds = number;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
