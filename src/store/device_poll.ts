/**
 * What one poll of a device authorization decides (RFC 8628 §3.5), shared by both adapters so
 * they answer alike; each runs it inside its own transaction on a locked row.
 */
import type { DeviceAuthorizationRow, DevicePollResult, UnixSeconds } from "./types.ts";

/** RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests". */
export const SLOW_DOWN_SECONDS = 5;

/** The result of the poll, and the columns to write (null: nothing). */
export function decide_poll(row: DeviceAuthorizationRow, now: UnixSeconds): { result: DevicePollResult; update: Partial<DeviceAuthorizationRow> | null } {
  if (row.status === "used" || row.status === "denied") return { result: { status: row.status, authorization: row }, update: null };
  if (row.expires_at <= now) return { result: { status: "expired", authorization: row }, update: null };
  if (row.status === "approved") {
    const used = { ...row, status: "used" as const, last_polled_at: now };
    return { result: { status: "approved", authorization: used }, update: { status: "used", last_polled_at: now } };
  }
  const slow_down = row.last_polled_at !== null && now - row.last_polled_at < row.poll_interval;
  const poll_interval = slow_down ? row.poll_interval + SLOW_DOWN_SECONDS : row.poll_interval;
  const next = { ...row, poll_interval, last_polled_at: now };
  return { result: { status: "pending", slow_down, authorization: next }, update: { poll_interval, last_polled_at: now } };
}
