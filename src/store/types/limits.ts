/** Store types: Replay protection and rate limits. The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

export type CounterState = { count: number; reset_at: UnixSeconds };

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
}
