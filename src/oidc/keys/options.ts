/**
 * How a KeyRing (keyring.ts) keeps its keys: read by the ring and by the store sync (view.ts),
 * so it lives apart from both and neither imports the other for it.
 */
import type { UnixSeconds } from "../../store/types.ts";
import type { Alg } from "./algs.ts";

export type KeyRingOptions = {
  /** Algs to sign with; each gets an active key (and a published next key). */
  algs: readonly Alg[];
  /** The longest lifetime of a token we sign: a retired key stays published this long. */
  retire_after_seconds: number;
  /** Extra time a retired key stays published, covering instances that notice a rotation one poll late (default 60). */
  retire_grace_seconds?: number;
  /** Keep a `next` key per alg in the JWKS ahead of rotation (default true). */
  publish_next?: boolean;
  /**
   * Seconds a key must have been in the store before this instance signs with it (default 0).
   * Other instances learn of a key by polling, so a key activated soon after it was stored (two
   * rotations within one poll interval, a key created active) may be missing from their JWKS;
   * meanwhile the key active before it, still published, keeps signing. The provider sets two
   * poll intervals.
   */
  publish_lead_seconds?: number;
  /**
   * Seconds a key signs before the published next key takes over (`rotate_due()`, run on every
   * poll); 0 or absent: keys rotate only when asked (`rotate()`). IDP_KEY_ROTATION_DAYS.
   */
  rotate_after_seconds?: number;
  /** RS256/PS256 through the system's OpenSSL 3 when it loads (default true; config `openssl`, jws.ts). */
  openssl?: boolean;
  /**
   * IDP_SECRET_KEY (config `federation.secret_key`, 32 bytes base64url): the private keys are
   * stored sealed under it (sealed_keys.ts). Without it they are stored in clear, and a store
   * holding sealed keys is refused.
   */
  secret_key?: string;
  /** Unix seconds (default: the system clock). */
  now?: () => UnixSeconds;
};
