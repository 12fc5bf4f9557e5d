/**
 * What the single-use operations answer, shared by both adapters so they answer alike: each
 * runs its atomic UPDATE, reads the stored row when that matched nothing, and asks here.
 */
import type { CodeRow, ConsumeCodeResult, RotateRefreshResult, TokenRow, UnixSeconds } from "./types.ts";

/** The answer of consume_code, from the row the atomic UPDATE returned or else the stored row. */
export function code_outcome(consumed: CodeRow | null, stored: CodeRow | null, now: UnixSeconds): ConsumeCodeResult {
  if (consumed) return consumed.expires_at <= now ? { status: "expired", code: consumed } : { status: "ok", code: consumed };
  return stored ? { status: "reused", code: stored } : { status: "not_found" };
}

/** The answer of rotate_refresh_token, from the row the atomic UPDATE returned or else the stored row. */
export function refresh_outcome(rotated: TokenRow | null, stored: TokenRow | null): RotateRefreshResult {
  if (rotated) return { status: "ok", token: rotated };
  if (stored?.kind !== "refresh") return { status: "not_found" };
  if (stored.rotated_at !== null) return { status: "reused", token: stored };
  if (stored.revoked_at !== null) return { status: "revoked", token: stored };
  return { status: "expired", token: stored };
}
