/** Store types: Browser sessions (SSO). The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

export type SessionRow = {
  id_hash: string;
  user_id: string;
  auth_time: UnixSeconds;
  amr: string[];
  acr: string | null;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
  last_seen_at: UnixSeconds;
  /** The browser's User-Agent at sign-in (bounded), shown on the account page; null when unknown. */
  user_agent: string | null;
  /** The address the session was started from; null when unknown. */
  ip: string | null;
};

export type NewSession = Omit<SessionRow, "created_at" | "last_seen_at" | "acr" | "user_agent" | "ip"> &
  Partial<Pick<SessionRow, "created_at" | "last_seen_at" | "acr" | "user_agent" | "ip">>;

export interface SessionStore {
  /** Raises StoreReferenceError for an unknown user. */
  create_session(session: NewSession): Promise<SessionRow>;
  get_session(id_hash: string): Promise<SessionRow | null>;
  list_sessions_for_user(user_id: string): Promise<SessionRow[]>;
  /** Records activity; optionally slides the expiry. False when the session is gone. */
  touch_session(id_hash: string, last_seen_at: UnixSeconds, expires_at?: UnixSeconds): Promise<boolean>;
  delete_session(id_hash: string): Promise<boolean>;
  /** Returns how many sessions were deleted. */
  delete_sessions_for_user(user_id: string): Promise<number>;
  /**
   * Remembers that a client signed in through this session (OIDC Back-Channel Logout §2.3). Idempotent;
   * does nothing when the session is gone. The rows go with the session and with the client.
   */
  add_session_client(session_id_hash: string, client_id: string, now?: UnixSeconds): Promise<void>;
  /** The client_ids a session signed in to, ordered by client_id. */
  list_session_clients(session_id_hash: string): Promise<string[]>;
}
