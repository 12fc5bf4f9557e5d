/** Store types: Access and refresh tokens. The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds, JsonObject } from "./common.ts";

export type TokenKind = "access" | "refresh";

export type TokenRow = {
  token_hash: string;
  kind: TokenKind;
  client_id: string;
  /** null for client_credentials. */
  user_id: string | null;
  scope: string;
  grant_id: string;
  /** Refresh rotation family: every rotated refresh token keeps the family of the first. */
  family_id: string | null;
  session_id_hash: string | null;
  auth_time: UnixSeconds | null;
  acr: string | null;
  amr: string[];
  claims: JsonObject | null;
  nonce: string | null;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
  revoked_at: UnixSeconds | null;
  /** Refresh tokens: set when exchanged for a new one. */
  rotated_at: UnixSeconds | null;
  /** RFC 9449 §6: JWK SHA-256 thumbprint of the DPoP key the token is bound to; null for a bearer token. */
  jkt: string | null;
  /**
   * RFC 8707: an access token's audience (one resource); a refresh token's whole authorized set,
   * so a refresh can narrow to any of them again (§2.2). null: no resource was asked.
   */
  resources: string[] | null;
  /** RFC 8693 §4.1: the actor of a delegated token (`{sub, client_id?, act?}`); null otherwise. */
  act: JsonObject | null;
};

export type NewToken = Pick<TokenRow, "token_hash" | "kind" | "client_id" | "scope" | "grant_id" | "expires_at"> &
  Partial<Omit<TokenRow, "token_hash" | "kind" | "client_id" | "scope" | "grant_id" | "expires_at" | "revoked_at" | "rotated_at">>;

/**
 * - ok: this call rotated the token; the caller issues the successor in the same family.
 * - reused: it was already rotated (RFC 9700 §4.14.2: the caller revokes the family).
 */
export type RotateRefreshResult =
  | { status: "ok"; token: TokenRow }
  | { status: "reused"; token: TokenRow }
  | { status: "revoked"; token: TokenRow }
  | { status: "expired"; token: TokenRow }
  | { status: "not_found" };

export interface TokenStore {
  /** Stored revoked (revoked_at: when) if its grant or family was revoked as a whole already. */
  insert_token(token: NewToken): Promise<TokenRow>;
  /** `revoked_at` is the row's, or else when its grant or family was revoked as a whole (revoke_by_grant, revoke_family). */
  get_token(token_hash: string): Promise<TokenRow | null>;
  /** Marks one token revoked; false when unknown or already revoked. */
  revoke_token(token_hash: string, now?: UnixSeconds): Promise<boolean>;
  /**
   * The revoke* methods return how many tokens they newly revoked. revoke_by_grant and
   * revoke_family also record the grant or family (migration 022), atomically with the update:
   * a token of it inserted later, or by a request that raced the revocation (the winner of a
   * replayed code or refresh token), is revoked too (insert_token, get_token, rotate_refresh_token).
   */
  revoke_by_grant(grant_id: string, now?: UnixSeconds): Promise<number>;
  revoke_family(family_id: string, now?: UnixSeconds): Promise<number>;
  revoke_for_user_client(user_id: string, client_id: string, now?: UnixSeconds): Promise<number>;
  /** Every token of the user, whatever client or session (a password reset: whoever had the account loses it). */
  revoke_for_user(user_id: string, now?: UnixSeconds): Promise<number>;
  /**
   * `keep_offline_refresh`: refresh tokens whose scope has offline_access stay valid, as they are
   * meant to outlive the browser session (OIDC Core §11) — logout uses it.
   */
  revoke_by_session(session_id_hash: string, now?: UnixSeconds, options?: { keep_offline_refresh?: boolean }): Promise<number>;
  /** Atomic: of any number of concurrent calls for one refresh token, exactly one gets "ok"; never "ok" for a token of a revoked grant or family. */
  rotate_refresh_token(token_hash: string, now: UnixSeconds): Promise<RotateRefreshResult>;
}
