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
};

export type NewSession = Omit<SessionRow, "created_at" | "last_seen_at" | "acr"> &
  Partial<Pick<SessionRow, "created_at" | "last_seen_at" | "acr">>;

export interface SessionStore {
  /** Raises StoreReferenceError for an unknown user. */
  createSession(session: NewSession): Promise<SessionRow>;
  getSession(idHash: string): Promise<SessionRow | null>;
  listSessionsForUser(userId: string): Promise<SessionRow[]>;
  /** Records activity; optionally slides the expiry. False when the session is gone. */
  touchSession(idHash: string, lastSeenAt: UnixSeconds, expiresAt?: UnixSeconds): Promise<boolean>;
  deleteSession(idHash: string): Promise<boolean>;
  /** Returns how many sessions were deleted. */
  deleteSessionsForUser(userId: string): Promise<number>;
  /**
   * Remembers that a client signed in through this session (OIDC Back-Channel Logout §2.3). Idempotent;
   * does nothing when the session is gone. The rows go with the session and with the client.
   */
  addSessionClient(sessionIdHash: string, clientId: string, now?: UnixSeconds): Promise<void>;
  /** The client_ids a session signed in to, ordered by client_id. */
  listSessionClients(sessionIdHash: string): Promise<string[]>;
}
