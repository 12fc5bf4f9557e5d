/** Store types: Registration initial access tokens (RFC 7591 §3). The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

export type InitialAccessTokenRow = {
  /** The token's public handle (`registration-token list` and `revoke`); never the token. */
  id: string;
  /** SHA-256 of the token: the token itself is never stored. */
  token_hash: string;
  created_at: UnixSeconds;
  /** null: never expires. */
  expires_at: UnixSeconds | null;
  /** Registrations it may still make; null: no limit. */
  uses_left: number | null;
};

export type NewInitialAccessToken = {
  token_hash: string;
  expires_at: UnixSeconds | null;
  /** null or absent: no limit. */
  uses_left?: number | null;
  id?: string;
  created_at?: UnixSeconds;
};

export interface InitialAccessTokenStore {
  create_initial_access_token(token: NewInitialAccessToken): Promise<InitialAccessTokenRow>;
  find_initial_access_token(token_hash: string): Promise<InitialAccessTokenRow | null>;
  /**
   * Takes one use of the token, atomically: the row after the use when the token exists, has not
   * expired at `now` and has a use left (uses_left decremented unless null); null otherwise. Two
   * concurrent calls on a token with one use left: exactly one gets the row.
   */
  use_initial_access_token(token_hash: string, now: UnixSeconds): Promise<InitialAccessTokenRow | null>;
  delete_initial_access_token(token_hash: string): Promise<boolean>;
  list_initial_access_tokens(): Promise<InitialAccessTokenRow[]>;
}
