/** Store types: Replay protection and rate limits. The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

export type CounterState = { count: number; reset_at: UnixSeconds };
export type CounterReservation = CounterState & { allowed: boolean };

export interface ReplayStore {
  /**
   * Records a client assertion's jti (RFC 7523 §3). True the first time, false while a previous
   * use has not expired. Atomic across instances.
   */
  use_jti(client_id: string, jti: string, expires_at: UnixSeconds, now?: UnixSeconds): Promise<boolean>;
}

export interface CounterStore {
  /** Fixed window: counts a hit on `key`, starting a new window when the last one ended. Atomic. */
  hit(key: string, window_seconds: number, now: UnixSeconds): Promise<CounterState>;
  get_counter(key: string): Promise<CounterState | null>;
  reset_counter(key: string): Promise<void>;
  /**
   * Fixed window with a limit, decided in one atomic step: counts a hit on `key` only while the
   * window's count is below `limit` (a new window when the last one ended). `allowed` false: no
   * hit was counted, and `reset_at` says when the window ends. Concurrent reservations, from any
   * instance, never take the count above `limit`.
   */
  reserve(key: string, limit: number, window_seconds: number, now: UnixSeconds): Promise<CounterReservation>;
  /** Gives back one reservation of the window ending at `reset_at`; nothing when that window is over. */
  release(key: string, reset_at: UnixSeconds): Promise<void>;
}
