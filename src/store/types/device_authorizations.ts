/** Store types: device authorizations (RFC 8628). The rules every adapter keeps are in ../types.ts. */

import type { JsonObject, UnixSeconds } from "./common.ts";

/**
 * pending: waiting for the user; approved / denied: the user's decision (RFC 8628 §3.3); used:
 * the device redeemed the approval for tokens (once, §3.5).
 */
export type DeviceAuthorizationStatus = "pending" | "approved" | "denied" | "used";

export type DeviceAuthorizationRow = {
  /** SHA-256 of the device_code (RFC 8628 §3.2): the code itself is never stored. */
  device_code_hash: string;
  /** SHA-256 of the normalized user_code (§6.1): looked up, never shown again. */
  user_code_hash: string;
  client_id: string;
  scope: string;
  /** OIDC Core §5.5 claims request, when the client sent one. */
  claims: JsonObject | null;
  status: DeviceAuthorizationStatus;
  /** The approving user and their authentication (null until approved). */
  user_id: string | null;
  session_id_hash: string | null;
  auth_time: UnixSeconds | null;
  amr: string[] | null;
  acr: string | null;
  /** Carried by every token issued from this authorization (revocation by grant). */
  grant_id: string;
  /** Seconds the device must wait between polls (§3.2 interval; raised by slow_down, §3.5). */
  poll_interval: number;
  last_polled_at: UnixSeconds | null;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
};

export type NewDeviceAuthorization = Pick<DeviceAuthorizationRow, "device_code_hash" | "user_code_hash" | "client_id" | "scope" | "grant_id" | "poll_interval" | "expires_at"> &
  Partial<Pick<DeviceAuthorizationRow, "claims" | "created_at">>;

/** The approving user's authentication, as the ID Token will state it (OIDC Core §2). */
export type DeviceApproval = { user_id: string; session_id_hash: string | null; auth_time: UnixSeconds; amr: string[]; acr: string | null };

/**
 * One poll of the token endpoint (RFC 8628 §3.5), decided atomically:
 * - approved: this call redeemed the approval (the row is now `used`);
 * - pending: still waiting; `slow_down` when polled sooner than `poll_interval` after the last
 *   poll (the interval is then raised by 5 seconds);
 * - denied / used / expired / not_found: the device's answer is final.
 */
export type DevicePollResult =
  | { status: "approved"; authorization: DeviceAuthorizationRow }
  | { status: "pending"; slow_down: boolean; authorization: DeviceAuthorizationRow }
  | { status: "denied" | "used" | "expired"; authorization: DeviceAuthorizationRow }
  | { status: "not_found" };

export interface DeviceAuthorizationStore {
  /** Raises StoreConflictError when the user_code_hash is taken by a live row (draw another). */
  insert_device_authorization(input: NewDeviceAuthorization): Promise<DeviceAuthorizationRow>;
  /** The unexpired authorization of this user code; null otherwise. */
  find_device_authorization(user_code_hash: string, now: UnixSeconds): Promise<DeviceAuthorizationRow | null>;
  /**
   * The user's decision (RFC 8628 §3.3): true when this call decided a pending, unexpired
   * authorization; false when it was already decided or has expired (it stays as it was).
   */
  decide_device_authorization(device_code_hash: string, decision: { status: "approved"; approval: DeviceApproval } | { status: "denied" }, now: UnixSeconds): Promise<boolean>;
  /** Atomic: of concurrent polls of one approved authorization exactly one gets "approved". */
  poll_device_authorization(device_code_hash: string, client_id: string, now: UnixSeconds): Promise<DevicePollResult>;
}
