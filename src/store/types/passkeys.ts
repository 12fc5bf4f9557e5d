/**
 * Store types: passkeys (WebAuthn credentials) and the challenges of their ceremonies. The rules
 * every adapter keeps are in ../types.ts.
 */

import type { UnixSeconds } from "./common.ts";

export type PasskeyRow = {
  /** Our id of the passkey (account page, CLI). */
  id: string;
  /** WebAuthn credential id, base64url; unique across all users. */
  credential_id: string;
  user_id: string;
  /** The credential's COSE public key, base64url. */
  public_key: string;
  /** The last signature counter accepted (WebAuthn §6.1.1); 0 for authenticators without one. */
  counter: number;
  /** Transport hints the browser reported (usb, nfc, ble, hybrid, internal). */
  transports: string[];
  /** Authenticator data flags BE and BS (WebAuthn §6.3.3): a synced (multi-device) passkey. */
  backup_eligible: boolean;
  backup_state: boolean;
  aaguid: string | null;
  /** The name the user gave it. */
  name: string;
  created_at: UnixSeconds;
  last_used_at: UnixSeconds | null;
};

/** `id` defaults to a random UUID, `created_at` to now. */
export type NewPasskey = Omit<PasskeyRow, "id" | "created_at" | "last_used_at"> & Partial<Pick<PasskeyRow, "id" | "created_at" | "last_used_at">>;

export type WebauthnChallengeRow = {
  /** SHA-256 of the challenge (base64url) sent to the browser. */
  challenge_hash: string;
  /** What the ceremony is for (registration, sign-in, second factor...). */
  purpose: string;
  /** SHA-256 of what it is bound to (a session, an interaction of one browser). */
  binding_hash: string;
  /** The user it is for; null for a sign-in with a discoverable credential. */
  user_id: string | null;
  created_at: UnixSeconds;
  expires_at: UnixSeconds;
};

export interface PasskeyStore {
  /** Raises StoreConflictError when the credential id is already registered. */
  create_passkey(passkey: NewPasskey): Promise<PasskeyRow>;
  get_passkey_by_credential_id(credential_id: string): Promise<PasskeyRow | null>;
  /** Oldest first. */
  list_passkeys_for_user(user_id: string): Promise<PasskeyRow[]>;
  count_passkeys_for_user(user_id: string): Promise<number>;
  /** Renames the user's passkey; false when the user has no passkey with this id. */
  rename_passkey(user_id: string, id: string, name: string): Promise<boolean>;
  /**
   * Records a sign-in with the passkey in one atomic step: stores `counter`, the backup state and
   * the time, but only while the stored counter is below `counter` (or both are 0, an
   * authenticator without a counter, WebAuthn §6.1.1). False: the counter did not move forward
   * (a cloned authenticator, or a replay racing this one), nothing was changed.
   */
  use_passkey(id: string, counter: number, backup_state: boolean, now: UnixSeconds): Promise<boolean>;
  /**
   * Deletes the user's passkey. With `keep_last`, refuses (false) when it is the user's only
   * passkey — decided atomically, so two removals at once cannot both pass.
   */
  delete_passkey(user_id: string, id: string, options?: { keep_last?: boolean }): Promise<boolean>;
  create_webauthn_challenge(challenge: Omit<WebauthnChallengeRow, "created_at"> & { created_at?: UnixSeconds }): Promise<void>;
  /** Atomic single use: returns and deletes the unexpired challenge; null when absent, expired or already taken. */
  consume_webauthn_challenge(challenge_hash: string, now: UnixSeconds): Promise<WebauthnChallengeRow | null>;
}
