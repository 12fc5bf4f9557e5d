/** Store types: Registration initial access tokens (RFC 7591 §3). The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

export type InitialAccessTokenRow = {
  token_hash: string;
  created_at: UnixSeconds;
  /** null: never expires. */
  expires_at: UnixSeconds | null;
};

export interface InitialAccessTokenStore {
  create_initial_access_token(token: { token_hash: string; expires_at: UnixSeconds | null; created_at?: UnixSeconds }): Promise<InitialAccessTokenRow>;
  find_initial_access_token(token_hash: string): Promise<InitialAccessTokenRow | null>;
  delete_initial_access_token(token_hash: string): Promise<boolean>;
  list_initial_access_tokens(): Promise<InitialAccessTokenRow[]>;
}
