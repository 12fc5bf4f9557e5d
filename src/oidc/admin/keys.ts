/**
 * Signing keys for `idp keys` (src/cli/keys.ts) and the admin API: a rotation through a KeyRing,
 * which first brings the store to a signing state (an active and a published next key per
 * configured alg). Key material is never shown: KeyInfo has ids, algs, states and dates.
 */
import { ALGS, is_alg, type Alg } from "../keys/algs.ts";
import { KeyRingError } from "../keys/errors.ts";
import type { KeyRing } from "../keys/keyring.ts";
import { AdminError, invalid_field } from "./errors.ts";

/** Rotates `alg` (every configured alg when undefined); returns the kid that now signs, per alg. */
export async function rotate_signing_keys(ring: KeyRing, configured: readonly Alg[], alg?: string): Promise<Record<string, string>> {
  if (alg !== undefined && !is_alg(alg)) throw invalid_field("alg", `"${alg}" is not one of ${ALGS.join(", ")}`);
  if (alg !== undefined && !configured.includes(alg)) throw invalid_field("alg", `${alg} is not configured (IDP_SIGNING_ALGS=${configured.join(",")})`);
  try {
    return Object.fromEntries(await ring.rotate(alg));
  } catch (error) {
    if (error instanceof KeyRingError) throw new AdminError("conflict", error.message);
    throw error;
  }
}
