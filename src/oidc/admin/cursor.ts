/**
 * Opaque cursors of keyset pagination: base64url of the JSON of the last item's sort key. A
 * client passes `next_cursor` back as `cursor`; it must not build one (the shape may change).
 */
import { Buffer } from "node:buffer";
import { invalid_field } from "./errors.ts";

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

export function encode_cursor(key: unknown): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

/** The key of a cursor, checked by `valid`; invalid_request naming `cursor` otherwise. */
export function decode_cursor<T>(cursor: string, valid: (value: unknown) => value is T): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    value = undefined;
  }
  if (!valid(value)) throw invalid_field("cursor", "is not a cursor this API returned");
  return value;
}

/** The page and the cursor of the next one: one more row than the limit was read to know whether there is more. */
export function page_of<T>(rows: T[], limit: number, key: (last: T) => unknown): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last !== undefined ? encode_cursor(key(last)) : null };
}
