/**
 * Entity tags for optimistic concurrency (RFC 9110 §8.8.3, §13.1.1): a strong ETag of an item's
 * JSON representation; a change (PATCH, DELETE) must send the tag it read in If-Match, or it is
 * refused: 428 without one (RFC 6585 §3), 412 when the item changed since (a lost update).
 */
import { sha256 } from "../crypto/secrets.ts";
import { AdminError, not_found } from "./errors.ts";

export function etag_of(representation: unknown): string {
  return `"${sha256(JSON.stringify(representation)).slice(0, 27)}"`;
}

/** RFC 9110 §13.1.1: If-Match is "*" or a list of entity tags, compared strongly (a weak tag never matches). */
export function check_if_match(if_match: string | null, current: string): void {
  if (if_match === null || if_match.trim() === "") {
    throw new AdminError("precondition_required", "this change needs If-Match with the ETag of the item as last read (GET it first)");
  }
  const value = if_match.trim();
  if (value === "*") return;
  const tags = value.split(",").map((tag) => tag.trim());
  if (!tags.includes(current)) throw changed_since_read();
}

function changed_since_read(): AdminError {
  return new AdminError("precondition_failed", "the item changed since it was read: GET it again and retry with its new ETag");
}

/**
 * Why a compare-and-set write (store/types/common.ts IfVersion) matched nothing: the item is gone
 * (not_found), or another change was written after this one's If-Match was checked
 * (precondition_failed, as for a stale ETag). `reread` is the item read again, or null.
 */
export async function lost_write(reread: Promise<unknown>, what: string, id: string): Promise<AdminError> {
  return (await reread) === null ? not_found(what, id) : changed_since_read();
}
