/** What purge_expired deletes, table by table, for both adapters. `:now` is the purge time. */
import type { PurgeCounts } from "./types.ts";

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
];

export function empty_purge_counts(): PurgeCounts {
  return { codes: 0, tokens: 0, sessions: 0, interactions: 0, jtis: 0, counters: 0, initial_access_tokens: 0 };
}
