/** The store's clock: the time rows are stamped with when the caller gives none. */
import type { UnixSeconds } from "./types/common.ts";

/** The current time in integer unix seconds. */
export function now_seconds(): UnixSeconds {
  return Math.floor(Date.now() / 1000);
}
