/**
 * Signing keys for `idp keys` (src/cli/keys.ts), the admin API and the console: a rotation through a KeyRing,
 * which first brings the store to a signing state (an active and a published next key per
 * configured alg), and the revocation of a compromised key. Key material is never shown: KeyInfo
 * has ids, algs, states and dates.
 */
import { ALGS, is_alg, type Alg } from "../keys/algs.ts";
import { KeyRingError } from "../keys/errors.ts";
import type { KeyInfo, KeyRing } from "../keys/keyring.ts";
import { AdminError, invalid_field, not_found } from "./errors.ts";

/** The alg a rotation names, when one of the configured algs (IDP_SIGNING_ALGS); invalid_request otherwise. */
export function rotation_alg(configured: readonly Alg[], alg: string): Alg {
  if (!is_alg(alg)) throw invalid_field("alg", `"${alg}" is not one of ${ALGS.join(", ")}`);
  if (!configured.includes(alg)) throw invalid_field("alg", `${alg} is not configured (IDP_SIGNING_ALGS=${configured.join(",")})`);
  return alg;
}

/** Rotates `alg` (every configured alg when undefined); returns the kid that now signs, per alg. */
export async function rotate_signing_keys(ring: KeyRing, configured: readonly Alg[], alg?: string): Promise<Record<string, string>> {
  const checked = alg === undefined ? undefined : rotation_alg(configured, alg);
  try {
    return Object.fromEntries(await ring.rotate(checked));
  } catch (error) {
    if (error instanceof KeyRingError) throw new AdminError("conflict", error.message);
    throw error;
  }
}

/**
 * Revokes the key `kid` at once (KeyRing.revoke: gone from the JWKS, its tokens refused; an
 * active key hands signing to another first). Returns the revoked key and the kid that now
 * signs, per alg; not_found for a kid the store does not hold.
 */
export async function revoke_signing_key(ring: KeyRing, kid: string): Promise<{ revoked: KeyInfo; active: Record<string, string> }> {
  try {
    const done = await ring.revoke(kid);
    if (done === null) throw not_found("key", kid);
    return { revoked: done.revoked, active: Object.fromEntries(done.active) };
  } catch (error) {
    if (error instanceof KeyRingError) throw new AdminError("conflict", error.message);
    throw error;
  }
}
