/** Store types: Registration initial access tokens (RFC 7591 §3). The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

export type InitialAccessTokenRow = {
  token_hash: string;
  created_at: UnixSeconds;
  /** null: never expires. */
  expires_at: UnixSeconds | null;
};

export interface InitialAccessTokenStore {
  createInitialAccessToken(token: { token_hash: string; expires_at: UnixSeconds | null; created_at?: UnixSeconds }): Promise<InitialAccessTokenRow>;
  findInitialAccessToken(tokenHash: string): Promise<InitialAccessTokenRow | null>;
  deleteInitialAccessToken(tokenHash: string): Promise<boolean>;
  listInitialAccessTokens(): Promise<InitialAccessTokenRow[]>;
}
