/** Store types: pushed authorization requests (RFC 9126). The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

/** The parameters of a pushed request: each a string (RFC 9126 §2.1, form-encoded once each). */
export type PushedParams = Record<string, string>;

export type PushedRequestRow = {
  /** SHA-256 of the random part of the `request_uri`: the reference itself is never stored. */
  request_uri_hash: string;
  /** The client that pushed it (deleted with the client). */
  client_id: string;
  params: PushedParams;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
};

export interface PushedRequestStore {
  insert_pushed_request(request: Omit<PushedRequestRow, "created_at"> & { created_at?: UnixSeconds }): Promise<void>;
  /**
   * Atomic single use (RFC 9126 §4): returns and deletes the unexpired request pushed by
   * `client_id`; null when absent, expired, already used or pushed by another client (then it
   * stays, so another client cannot burn it).
   */
  consume_pushed_request(request_uri_hash: string, client_id: string, now: UnixSeconds): Promise<PushedRequestRow | null>;
}
